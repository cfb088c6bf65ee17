/**
 * Opening and closing, the same for every backend: `init()` runs the opening once however
 * many callers race for it (the router and a health check may both call it at start-up),
 * a failed opening can be retried, and nothing runs on a closed store.
 */
export interface Lifecycle<Handle> {
  /** The opened handle; opens on first call. Every store method goes through here, so calling `init()` first is optional. */
  ready(): Promise<Handle>;
  /** Idempotent. Waits for an opening in flight, then releases what it opened. */
  close(): Promise<void>;
}

export function lifecycle<Handle>(
  name: string,
  open: () => Promise<Handle>,
  release: (handle: Handle) => Promise<void> | void,
): Lifecycle<Handle> {
  let opening: Promise<Handle> | undefined;
  let closing: Promise<void> | undefined;

  return {
    ready() {
      if (closing) return Promise.reject(new Error(`${name} is closed; create a new store to use it again.`));
      // Forget a failed opening, so the next call tries again (the database may be up now).
      opening ??= open().catch((error: unknown) => {
        opening = undefined;
        throw error;
      });
      return opening;
    },
    close() {
      closing ??= (async () => {
        if (!opening) return;
        let handle: Handle;
        try {
          handle = await opening;
        } catch {
          return; // nothing was opened, so there is nothing to release
        }
        await release(handle);
      })();
      return closing;
    },
  };
}
