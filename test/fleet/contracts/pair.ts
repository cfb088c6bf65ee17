/**
 * What each contract runs against: two instances' views of one shared state (`a`, `b`).
 * In process both are the same object (one instance is the whole fleet); on Redis they
 * are two fleets on the same prefix, i.e. two app instances.
 */
export interface Pair<T> {
  a: T;
  b: T;
  close(): Promise<void>;
}

export type MakePair<T> = () => Promise<Pair<T>>;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
