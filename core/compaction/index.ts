export * from "./config";
export * from "./prune";
export * from "./fold";
export * from "./select";
export * from "./summarize";
export * from "./measure";
export * from "./ledger";
export * from "./compactor";
