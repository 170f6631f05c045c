export * from "./attachments";
export * from "./fuzzy";
