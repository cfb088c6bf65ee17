/**
 * The capacity plan of an exam before exam day: how many sign-in tokens one API key can
 * have ready at once, and when the last student can start if all arrive at once.
 *
 * A sign-in token lives `tokenLifeMs` (10 minutes) from its request, and the key allows
 * `ratePerMinute` requests (60 on a dev key, 600 on a prod key). Tokens asked earlier than
 * one life before the start have expired by then, so at most rate × life are ready at
 * once: 600 × 10 = 6,000 on one prod key. Students beyond that are signed in on demand at
 * the key's rate, the last `(N − ready) / rate` minutes after the start. (The preparer
 * hands a token out only while 2 minutes of its life remain, so in practice a little
 * fewer are ready; the plan names the ceiling.)
 */

export interface CapacityInput {
  students: number;
  /** The key's sign-in requests per minute (`rateLimitPerMinute`): 60 dev, 600 prod. */
  ratePerMinute: number;
  /** A sign-in token's life, ms. Default 600 000 (10 minutes). */
  tokenLifeMs?: number;
  /** The share of the rate preparing may use (`prepare.budgetShare`). Default 0.5. */
  budgetShare?: number;
}

export interface CapacityPlan {
  students: number;
  ratePerMinute: number;
  /** Tokens one key can have ready at the start. */
  readyAtOnce: number;
  /** Students signed in on demand at the start (0 when all fit). */
  onDemand: number;
  /** If all arrive at the start: the last one starts this long after it, ms. */
  lastStartAfterMs: number;
  /** How long before the start preparing the ready tokens takes at `budgetShare` of the rate, ms. */
  prepareLeadMs: number;
  /** API keys for every student to have a token ready at once. */
  keysNeeded: number;
  /** What to do, in words, when not every student fits. */
  advice: string[];
}

const MINUTE = 60_000;

export function capacityPlan(input: CapacityInput): CapacityPlan {
  const students = Math.max(0, Math.floor(input.students));
  const rate = Math.max(1, input.ratePerMinute);
  const lifeMs = input.tokenLifeMs ?? 600_000;
  const share = input.budgetShare ?? 0.5;
  const ceiling = Math.floor((rate * lifeMs) / MINUTE);
  const readyAtOnce = Math.min(students, ceiling);
  const onDemand = students - readyAtOnce;
  const lastStartAfterMs = Math.ceil((onDemand / rate) * MINUTE);
  const prepareLeadMs = Math.ceil((readyAtOnce / (rate * share)) * MINUTE);
  const keysNeeded = Math.max(1, Math.ceil(students / Math.max(1, ceiling)));
  const minutes = (ms: number) => `${Math.ceil(ms / MINUTE)} min`;
  const advice: string[] = [];
  if (onDemand > 0) {
    advice.push(
      `Stagger the start: groups of at most ${ceiling.toLocaleString("en-US")} students, ${minutes(lifeMs)} apart, each prepared for its own start time.`,
      `Or use ${keysNeeded} API keys (one per group of ${ceiling.toLocaleString("en-US")}): each key has its own rate and its own ready tokens.`,
      `Otherwise ${onDemand.toLocaleString("en-US")} students are signed in on demand at ${rate}/min: the last starts about ${minutes(lastStartAfterMs)} after the start.`,
    );
  }
  if (prepareLeadMs > lifeMs) {
    advice.push(`Preparing ${readyAtOnce.toLocaleString("en-US")} tokens takes about ${minutes(prepareLeadMs)} at ${Math.round(share * 100)}% of the rate, longer than a token lives: the first tokens are refreshed while the last are issued. Prepare as early as possible (at least ${minutes(prepareLeadMs)} ahead) and keep other calls on the key low then.`);
  } else if (students > 0) {
    advice.push(`Preparing takes about ${minutes(prepareLeadMs)} at ${Math.round(share * 100)}% of the key's rate: prepare at least that long before the start.`);
  }
  return { students, ratePerMinute: rate, readyAtOnce, onDemand, lastStartAfterMs, prepareLeadMs, keysNeeded, advice };
}
