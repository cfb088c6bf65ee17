/**
 * Writing a long answer at the client's pace. A client that stops reading (a stalled
 * download, a script that never reads) must not make the server buffer the rest of an
 * export in memory: each chunk waits until the socket's buffer drains below its
 * high-water mark. The writer learns that the client went, so it stops reading the store.
 */
import type { Response } from "express";

/**
 * A client that reads nothing for this long is let go (its socket closed): otherwise a
 * paused export would hold its socket and its last page forever.
 */
export const STALLED_MS = 120_000;

/**
 * Writes `chunk`, then, when the response's buffer is past its high-water mark, waits
 * for `drain`. Resolves false when the client is gone (or was let go for stalling):
 * write nothing more.
 */
export function writeAtClientPace(res: Response, chunk: string, stalledMs = STALLED_MS): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return Promise.resolve(false);
  if (res.write(chunk)) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(stalled);
      res.off("drain", drained);
      res.off("close", gone);
      resolve(ok);
    };
    const drained = () => done(true);
    const gone = () => done(false);
    const stalled = setTimeout(() => {
      res.destroy();
      done(false);
    }, stalledMs);
    res.once("drain", drained);
    res.once("close", gone);
  });
}

/**
 * Writes `chunks` one by one at the client's pace (writeAtClientPace), taking each out of
 * the array as it goes, so text already handed to the socket is not held here too.
 * Resolves false when the client is gone: write nothing more.
 */
export async function writeAllAtClientPace(res: Response, chunks: string[], stalledMs = STALLED_MS): Promise<boolean> {
  for (let chunk = chunks.shift(); chunk !== undefined; chunk = chunks.shift()) {
    if (!(await writeAtClientPace(res, chunk, stalledMs))) return false;
  }
  return true;
}
