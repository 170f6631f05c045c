// The tool contract every host shares. Node implementations: `core/tools/node`.
export * from "./types";
export * from "./errors";
export * from "./sandbox";
export * from "./cap";
export * from "./env";
export * from "./text";
export * from "./edits";
export * from "./edit-text";
export * from "./definitions";
export * from "./registry";
