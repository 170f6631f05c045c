export * from "./types";
export * from "./errors";
export * from "./agents";
export * from "./workspace-runtime";
export * from "./search";
export * from "./restore";
export { RestoreError, type ConflictChoice } from "../checkpoints/apply";
export type { RestoreFilePlan, RestoreStatus } from "../checkpoints/plan";
