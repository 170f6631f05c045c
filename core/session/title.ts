import type { SessionEvent, SessionTitleData } from "../protocol";

export type TitleSourceKind = SessionTitleData["source"]["kind"];
export interface TitleState {
  title: string | undefined;
  source: TitleSourceKind | undefined;
  /** Seq of the title event in force. */
  seq: number | undefined;
  /** A user rename happened: automatic titles no longer apply. */
  pinned: boolean;
}

export const EMPTY_TITLE: TitleState = Object.freeze({
  title: undefined,
  source: undefined,
  seq: undefined,
  pinned: false,
});

/**
 * Folds one event into the title (seed 003: latest wins; once the user renamed the
 * session, later automatic titles are ignored). Pure: the same on hot and cold paths.
 */
export function foldTitle(state: TitleState, event: SessionEvent): TitleState {
  if (event.type !== "session/title") return state;
  const data = event.data as SessionTitleData;
  const kind = data.source.kind;
  if (state.pinned && kind !== "user") return state;
  return { title: data.title, source: kind, seq: event.seq, pinned: state.pinned || kind === "user" };
}

/** Normalises a title: one line, collapsed spaces, bounded length. */
export function normaliseTitle(raw: string, maxLength = 80): string {
  const line = raw.replace(/\s+/g, " ").trim();
  if (line.length <= maxLength) return line;
  const cut = line.slice(0, maxLength - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > maxLength / 2 ? cut.slice(0, space) : cut}…`;
}
