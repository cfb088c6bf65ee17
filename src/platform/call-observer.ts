/**
 * Who hears of each platform request a client sends: the router's metrics count them by
 * endpoint and status. The client carries its observers under a symbol nobody else uses
 * (as it carries its budget binding), so the router can observe a client the app built
 * without the platform layer knowing the router, and without a public option.
 *
 * One event per HTTP attempt (a retry is a second request the platform saw), never with a
 * body, a header, the URL's ids or the key: the endpoint is its path template.
 */
import type { HttpMethod } from "./retry.js";
import type { PlatformClient } from "./types.js";

export interface PlatformCallEvent {
  method: HttpMethod;
  /** The endpoint's path template (`/courses/{courseId}`); `other` for a `request()` path matching none. */
  endpoint: string;
  /** The HTTP status of the answer; undefined when none came (see `failure`). */
  status: number | undefined;
  /** Why no answer came: `timeout`, `reset`, `network`, `too_large`, `aborted`; undefined with a status. */
  failure: string | undefined;
}

export type PlatformCallObserver = (event: PlatformCallEvent) => void;

/** The observers of one client, by the key each attached with (one per metrics registry), counted. */
export type CallObservers = Map<object, { observer: PlatformCallObserver; count: number }>;

const OBSERVERS = Symbol("express-oral-assessments.call-observers");

/** Called by `createPlatformClient` on the client it returns. */
export function attachCallObservers(client: PlatformClient, observers: CallObservers): void {
  Object.defineProperty(client, OBSERVERS, { value: observers, enumerable: false });
}

/**
 * Observes `client`'s requests until the returned function is called. The same `key`
 * attached twice (two routers counting on one registry, sharing one client) observes
 * once, so a request is not counted twice. False-y for a client not built by
 * `createPlatformClient`: nothing to observe.
 */
function observePlatformCalls(client: PlatformClient, key: object, observer: PlatformCallObserver): (() => void) | undefined {
  const observers = (client as unknown as Record<symbol, CallObservers | undefined>)[OBSERVERS];
  if (!observers) return undefined;
  const held = observers.get(key);
  if (held) held.count += 1;
  else observers.set(key, { observer, count: 1 });
  let done = false;
  return () => {
    const entry = observers.get(key);
    if (done || !entry) return;
    done = true;
    if (--entry.count === 0) observers.delete(key);
  };
}

/** An observation of a live client: `rewire` after the client behind it changed (a rotated key), `close` to stop. */
export interface FollowedCalls {
  rewire(): void;
  close(): void;
}

/** `observePlatformCalls` on a live client, observed anew on each `rewire`. */
export function followPlatformCalls(client: PlatformClient, key: object, observer: PlatformCallObserver): FollowedCalls {
  let unobserve = observePlatformCalls(client, key, observer);
  return {
    rewire() {
      unobserve?.();
      unobserve = observePlatformCalls(client, key, observer);
    },
    close() {
      unobserve?.();
      unobserve = undefined;
    },
  };
}

/** Tells every observer; an observer that throws is its own bug and must not fail the call. */
export function notifyObservers(observers: CallObservers, event: PlatformCallEvent): void {
  for (const { observer } of observers.values()) {
    try {
      observer(event);
    } catch {
      // ignored: counting must never break a launch
    }
  }
}
