export * from "./content";
export * from "./usage";
export * from "./message";
export * from "./stream";
export * from "./generate";
export * from "./events";
export * from "./tool-details";
export * from "./agent-events";
