export * from "./content";
export * from "./usage";
export * from "./message";
export * from "./stream";
export * from "./generate";
export * from "./events";
