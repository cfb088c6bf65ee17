/**
 * The calls an instance's fallback budget sent while it could not reach Redis, kept until
 * they can no longer count on the platform (a window after their answer), so that the
 * shared window counts them once the instance is back: in flight, from when they were
 * sent; answered, from their answer, as the shared window counts its own calls.
 *
 * Without this, the shared window that Redis lost (or never had) starts from the calls
 * made through it only: once the platform's Remaining is no longer known (its Reset
 * passed) it counts a window with the fallback's calls still in it as having room for
 * them, and the fleet sends them again (3 platform 429s in test/fleet/restart-races.test.ts).
 *
 * Ages, not times, go to Redis: the script places them on Redis's clock.
 */

/** ARGV: leaseMs, windowMs, then per call: id, ms since it was sent, ms since its answer (-1: in flight). */
export const ADOPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease, W = tonumber(ARGV[1]), tonumber(ARGV[2])
for i = 3, #ARGV, 3 do
  local id, sentAgo, answeredAgo = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  if answeredAgo < 0 then
    redis.call('ZADD', KEYS[2], now + lease, id)
    redis.call('ZADD', KEYS[1], now - sentAgo, id)
    redis.call('ZADD', KEYS[11], (now - sentAgo) * 1000, id)
  elseif answeredAgo < W then
    redis.call('ZADD', KEYS[1], 'GT', now - answeredAgo, id)
    redis.call('ZADD', KEYS[11], (now - sentAgo) * 1000, id)
  end
end
-- Nothing idle lives forever (a window Redis lost comes back without a lifetime): at most
-- until the lease of what is in flight, and two windows more; a longer lifetime stays.
for _, k in ipairs({ KEYS[1], KEYS[2], KEYS[11] }) do
  if redis.call('EXISTS', k) == 1 then
    redis.call('PEXPIRE', k, lease + 2 * W, 'NX')
    redis.call('PEXPIRE', k, lease + 2 * W, 'GT')
  end
end
return 1
`;

interface FallbackCall {
  sentAt: number;
  answeredAt: number | undefined;
  /** Written to the shared window (by `adopt`): its answer then goes there too. */
  inRedis: boolean;
}

export class FallbackCalls {
  /** By call id, in send order. */
  private readonly calls = new Map<string, FallbackCall>();

  constructor(private readonly now: () => number = Date.now) {}

  sent(id: string): void {
    this.calls.set(id, { sentAt: this.now(), answeredAt: undefined, inRedis: false });
  }

  /** Its answer is in; true when the shared window holds it (its release then goes there). */
  answered(id: string): boolean {
    const call = this.calls.get(id);
    if (!call) return false;
    call.answeredAt = this.now();
    return call.inRedis;
  }

  has(id: string): boolean {
    return this.calls.has(id);
  }

  /** Whether some call is not in the shared window yet. */
  pending(windowMs: number): boolean {
    this.forget(windowMs);
    for (const call of this.calls.values()) if (!call.inRedis) return true;
    return false;
  }

  /**
   * The ADOPT arguments after `leaseMs, windowMs` for every call that may still count on
   * the platform (all of them again: Redis may have lost those written before), and their
   * ids for `written` once the script ran.
   */
  adopt(windowMs: number): { args: (string | number)[]; ids: string[]; inFlight: Set<string> } {
    this.forget(windowMs);
    const now = this.now();
    const args: (string | number)[] = [];
    const ids: string[] = [];
    const inFlight = new Set<string>();
    for (const [id, call] of this.calls) {
      args.push(id, now - call.sentAt, call.answeredAt === undefined ? -1 : now - call.answeredAt);
      ids.push(id);
      if (call.answeredAt === undefined) inFlight.add(id);
    }
    return { args, ids, inFlight };
  }

  /**
   * Marks `ids` as written; returns those answered while the script ran (written as in
   * flight): their answer goes to Redis now, or their slot would be held until the lease.
   */
  written(ids: string[], inFlight: Set<string>): string[] {
    const answered: string[] = [];
    for (const id of ids) {
      const call = this.calls.get(id);
      if (!call) continue;
      call.inRedis = true;
      if (inFlight.has(id) && call.answeredAt !== undefined) answered.push(id);
    }
    return answered;
  }

  /** Forgets the calls answered more than a window ago: they left the platform's window too. */
  private forget(windowMs: number): void {
    const before = this.now() - windowMs;
    for (const [id, call] of this.calls) {
      if (call.answeredAt !== undefined && call.answeredAt <= before) this.calls.delete(id);
    }
  }
}
