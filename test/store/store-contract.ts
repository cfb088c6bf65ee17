/**
 * The behaviours every OralStoreWithLti promises, run against each backend. A backend passes
 * this or it does not ship: the router is written against these promises, not against
 * any one database. Each part is its own file (records, deletion, idempotency, life
 * cycle, scoping, launch records, LTI); this one opens the stores they test.
 */
import { afterEach, describe } from "vitest";
import type { OralStoreWithLti } from "../../src/store/types.js";
import { course, exam, ids, klass, type StoreHarness } from "./contract-fixtures.js";
import { describeDeletionContract } from "./deletion-contract.js";
import { describeIdempotencyContract } from "./idempotency-contract.js";
import { describeLifecycleContract } from "./lifecycle-contract.js";
import { describeRecordsContract } from "./records-contract.js";
import { describeScopingContract } from "./scoping-contract.js";
import { describeLaunchContract } from "./launch-contract.js";
import { describeLtiContract } from "./lti-contract.js";
import { describeLtiCourseContract } from "./lti-course-contract.js";
import { describeLtiGradebookContract } from "./lti-gradebook-contract.js";

export interface ContractOptions {
  /**
   * True when two stores opened on the same place share records (a file, a database),
   * which unlocks the "survives reopen" tests.
   */
  persistent: boolean;
}

/**
 * `makeStore(place)` opens a store on `place`: the same place gives stores over the same
 * records (for persistent backends), a new place gives an empty store. Each test uses
 * its own place, so tests never see each other's records.
 */
export function describeStoreContract(
  name: string,
  makeStore: (place: string) => OralStoreWithLti,
  options: ContractOptions,
): void {
  describe(`${name}: the OralStore contract`, () => {
    let places = 0;
    const opened: OralStoreWithLti[] = [];
    const place = () => `p${++places}`;
    const open = (where = place()) => {
      const store = makeStore(where);
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });
    const harness: StoreHarness = { open, place, persistent: options.persistent };

    describeScopingContract(() => open(), { course, klass, exam, ids });
    describeLaunchContract(() => open());
    describeLtiContract(() => open());
    // Persistent backends: a store opened again on the same place sees the links.
    const placed = new WeakMap<OralStoreWithLti, string>();
    describeLtiCourseContract(() => { const where = place(); const s = open(where); placed.set(s, where); return s; }, options.persistent ? (s) => open(placed.get(s)) : undefined);
    describeLtiGradebookContract(() => { const where = place(); const s = open(where); placed.set(s, where); return s; }, options.persistent ? (s) => open(placed.get(s)) : undefined);
    describeRecordsContract(harness);
    describeDeletionContract(harness);
    describeLifecycleContract(harness);
    describeIdempotencyContract(harness);
  });
}
