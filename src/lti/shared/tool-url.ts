/**
 * The tool's own URLs (login, redirect, key set): from `lti.toolUrl` when set, else from
 * the request (protocol and host as Express reports them, honouring `trust proxy`, plus
 * the mount path), so a first launch needs no extra setting.
 */
import type { Request } from "express";

export function toolBase(req: Request, toolUrl: string | undefined): string {
  return toolUrl ?? `${req.protocol}://${req.get("host") ?? "localhost"}${req.baseUrl}`;
}

export const launchUrl = (req: Request, toolUrl: string | undefined) => `${toolBase(req, toolUrl)}/lti/launch`;
