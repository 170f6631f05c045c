export { CompactionConfig, type CompactionSettings } from "./config";
export { sentTotal, ContextChars } from "./measure";
export { type CompactionOutcome, CompactionImpossibleError, Compactor } from "./compactor";
