/**
 * What `router.lti.postScore(...)` takes. Apart from `gradebook-scores.ts` so the router's
 * public type names only public types: the gradebook's internals (tool keys, verified
 * launches) stay out of the package's declarations, which CommonJS consumers type-check.
 */
import type { ScoresRequestInput } from "../api/scores-request.js";
import type { ExamKind } from "../store/types.js";

export interface PostScoreInput extends Partial<ScoresRequestInput> {
  examId: string;
  /** Default `"oral"`. */
  kind?: ExamKind;
  /** The organization (many organizations); default the router's own. */
  organization?: string;
}
