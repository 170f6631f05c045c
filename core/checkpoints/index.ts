export { type PendingCheckpoint, CheckpointRecorder } from "./recorder";
export { ContentSource } from "./content";
export { restorePointOf } from "./timeline";
export { planRestore, type RestoreFilePlan, type LoadedPlan } from "./plan";
export {
  applyRestore,
  endRestore,
  settleInterruptedRestore,
  undoableRestore,
  type ConflictChoice,
  RestoreError,
} from "./apply";
