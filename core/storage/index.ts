export { Sessions, type SessionsOptions } from "./sessions";
export { JsonlSessionPersistence } from "./jsonl-persistence";
export { SessionNotFoundError } from "./errors";
export { encodeId, decodeId } from "./id-codec";
export { sessionPaths, DOWNCITY_DIR, type SessionPaths } from "./layout";
export { readStoredItemAt, type StoredItemAt } from "./list/stored-item";
