/** HEAD and prefetch requests of a launch URL: shared with the LTI exam link (src/core/speculative.ts). */
export { answerSpeculative, isSpeculative, type SpeculativeAnswer } from "../../core/speculative.js";
