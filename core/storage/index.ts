export { Sessions, type SessionsOptions } from "./sessions";
export {
  JsonlSessionPersistence,
  SessionNotFoundError,
  SessionRefusedError,
  type JsonlPersistenceOptions,
} from "./jsonl-persistence";
export { nodeFs, type FsSeam, type FileHandleSeam, type OpenFlags } from "./fs/fs-seam";
export { encodeId, decodeId } from "./id-codec";
export { sessionPaths, DOWNCITY_DIR, type SessionPaths } from "./layout";
export { decodeSegment, encodeSegment, parseSegmentName, segmentFileName, SegmentError } from "./segment-codec";
export { SummaryFooter } from "./records";
export { SessionMeta } from "./meta-schema";
export type {
  HistoryPage,
  RepairReport,
  SessionChange,
  SessionListItem,
  SessionPersistence,
  LocalSessionRef,
} from "../session";
export { readStoredItemAt, type StoredItemAt } from "./list/stored-item";
