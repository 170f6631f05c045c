export * from "./types";
export * from "./errors";
export * from "./agents";
export * from "./workspace-runtime";
export * from "./search";
export * from "./create";
export * from "./host";
