/**
 * The logged-in user, as passport (or any auth middleware) leaves it on `req.user`. Read
 * through here so the package does not depend on passport's type augmentation.
 */
import type { Request } from "express";

export function userOf(req: Request): Record<string, unknown> | undefined {
  const user = (req as Request & { user?: unknown }).user;
  return user !== null && typeof user === "object" ? (user as Record<string, unknown>) : undefined;
}
