export { SessionEventError, ReadOnlySessionError } from "./errors";
export { SurfaceManager } from "./surface";
export { deriveEventMessage } from "./derive";
export { foldTitle, normaliseTitle, type TitleState, EMPTY_TITLE } from "./title";
export { type PrefixSummary, type SessionInit, Session } from "./session";
export { DEFAULT_AGENT_ID, SessionStore } from "./store";
export {
  type LocalSessionRef,
  type SessionListItem,
  type DamagedFolder,
  type RepairReport,
  type HistoryPage,
  type Draft,
  type SessionStoragePort,
  type ListFilter,
  type SessionChange,
  type ForkOptions,
  type SessionPersistence,
} from "./persistence";
export {
  usageAfterCompactions,
  eventMarkdown,
  wholeHistory,
  renderTranscript,
  type TranscriptFormat,
} from "./transcript";
