export * from "./errors";
export * from "./surface";
export * from "./derive";
export * from "./title";
export * from "./session";
export * from "./store";
export * from "./persistence";
export * from "./transcript";
