/**
 * How the router gives a client built by the app the fleet's shared rate budget, so that
 * fleet mode has one wiring point (`oralAssessments({ platform, fleet })`) and a client
 * can no longer silently keep a window of its own beside the fleet's.
 *
 * A client made by `createPlatformClient` carries, under a symbol nobody else uses, the
 * budget it was explicitly given and a way to build its twin on another budget (the key
 * stays inside the client's closure: the router never holds it).
 */
import type { RateBudget } from "./rate-budget-interface.js";
import type { PlatformClient } from "./types.js";

const BINDING = Symbol("express-oral-assessments.budget-binding");

interface BudgetBinding {
  /** The `rateBudget` option the client was built with, if any. */
  readonly given: RateBudget | undefined;
  /** The same client (key, address, options) on `budget`. */
  rebuild(budget: RateBudget): PlatformClient;
}

/** Called by `createPlatformClient` on the client it returns. */
export function attachBudgetBinding(client: PlatformClient, binding: BudgetBinding): void {
  Object.defineProperty(client, BINDING, { value: binding, enumerable: false });
}

export type FleetBudgetAnswer =
  | { kind: "same"; client: PlatformClient }
  | { kind: "rebuilt"; client: PlatformClient }
  | { kind: "other-budget" }
  | { kind: "not-ours" };

/**
 * The client to use beside a fleet whose budget is `budget`: the app's own when it already
 * shares it, a twin on it when the app gave none; `other-budget` when the app gave the
 * client a different one, `not-ours` when the object was not built by `createPlatformClient`.
 */
export function onFleetBudget(client: PlatformClient, budget: RateBudget): FleetBudgetAnswer {
  const binding = (client as unknown as Record<symbol, BudgetBinding | undefined>)[BINDING];
  if (!binding) return { kind: "not-ours" };
  if (binding.given === budget) return { kind: "same", client };
  if (binding.given !== undefined) return { kind: "other-budget" };
  return { kind: "rebuilt", client: binding.rebuild(budget) };
}
