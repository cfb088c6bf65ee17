/**
 * The budget of each API key a client holds: weakly, so that an organization's budget
 * (its fallback, its queues) goes with the last client of its key, not with the process
 * (with a thousand organizations the map would otherwise only grow). A budget collected
 * leaves the map and stops listening for Redis coming back.
 */
export class KeyBudgets<Budget extends object, Hint = undefined> {
  private readonly perKey = new Map<string, WeakRef<Budget>>();
  private readonly forgotten = new FinalizationRegistry<{ keyHash: string; stopListening: () => void }>(({ keyHash, stopListening }) => {
    stopListening();
    if (this.perKey.get(keyHash)?.deref() === undefined) this.perKey.delete(keyHash);
  });

  /**
   * `create` makes a key's budget, with what stops its listener for Redis coming back (it
   * must hold the budget weakly, or the budget is never collected).
   */
  constructor(private readonly create: (keyHash: string, hint: Hint | undefined) => { budget: Budget; stopListening: () => void }) {}

  /** The budget of one API key, by its hash: the one a client still holds, or a new one (made with `hint`). */
  forKey(keyHash: string, hint?: Hint): Budget {
    let budget = this.perKey.get(keyHash)?.deref();
    if (!budget) {
      const made = this.create(keyHash, hint);
      budget = made.budget;
      this.perKey.set(keyHash, new WeakRef(budget));
      this.forgotten.register(budget, { keyHash, stopListening: made.stopListening });
    }
    return budget;
  }

  /** How many keys' budgets are held (collected ones leave). */
  get size(): number {
    return this.perKey.size;
  }
}
