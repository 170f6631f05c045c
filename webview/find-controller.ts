import {
  sessionKey,
  type ChatMethod,
  type ChatPage,
  type ChatParams,
  type SessionRef,
  type ChatResult,
  type RevealTarget,
  type SessionSearchHit,
} from "../core/protocol";
import { findMatches, matcher, rowKeyAt, type FindMatch } from "./find";
import { clearHighlights, highlightRows } from "./highlight";
import type { VirtualList } from "./list";
import type { Conversation, Item } from "./conversation";

/** Counted so tests assert the find bar's cost: recounts happen when rows change, marks cover only rows on screen. */
export const findStats = { recounts: 0, rowsMarked: 0 };

/** What the find bar needs from the chat app. */
export interface FindHost {
  readonly conversation: Conversation;
  readonly list: VirtualList<Item> | undefined;
  ref(): SessionRef | undefined;
  call<M extends ChatMethod>(method: M, params: ChatParams<M>): Promise<ChatResult<M> | undefined>;
  refresh(): void;
  /** Puts pages loaded by a reveal above what is shown, as Load earlier does. */
  prepend(page: ChatPage): void;
}

/** "Search this whole session": its query and what the core query returned. */
export interface SessionResults {
  query: string;
  state: "searching" | "done";
  hits: SessionSearchHit[];
  more: boolean;
}

/**
 * The chat's find bar (Ctrl/Cmd+F) and reveals (a search result opened at its message).
 * Matches are counted over the rows the view holds, not the DOM (only rows on screen are
 * in it); the rendered rows are marked after each draw.
 */
export class FindController {
  open = false;
  query = "";
  matches: FindMatch[] = [];
  current = -1;
  session: SessionResults | undefined;
  /** The row a reveal pointed at, and the words to mark in it. */
  revealed: { key: string; query?: string } | undefined;
  /** What the matches were counted over: recounted only when rows came or went. */
  private countedAt = "";
  private revealing = 0;
  /**
   * The reveal the last switch asked for, by session. Showing the same session again (a
   * reloading view's hello answered after the switch event) does it again; sending a
   * message or opening the find bar means the reader moved on.
   */
  private wanted: { session: string; target: RevealTarget } | undefined;

  constructor(private readonly host: FindHost) {}

  /** Ctrl/Cmd+F anywhere in the view opens the bar (the webview host would otherwise take it). */
  install(doc: Document): void {
    doc.addEventListener("keydown", (e) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "f") {
        e.preventDefault();
        e.stopPropagation();
        this.show();
      }
    });
  }

  show(): void {
    this.forget();
    this.open = true;
    this.host.refresh();
    const input = document.querySelector<HTMLInputElement>(".find-bar input");
    input?.focus();
    input?.select();
  }

  close(): void {
    this.open = false;
    this.session = undefined;
    this.matches = [];
    this.current = -1;
    this.host.refresh();
    this.decorate();
    document.querySelector<HTMLElement>(".log-scroller")?.focus();
  }

  setQuery(query: string): void {
    this.query = query;
    if (this.session && this.session.query !== query) this.session = undefined;
    this.recount(true);
    // The newest occurrence first: a chat is read from its end.
    this.current = this.matches.length - 1;
    this.host.refresh();
    this.goToCurrent();
  }

  /** Next (down, later) or previous (up, earlier) occurrence, wrapping around. */
  step(delta: 1 | -1): void {
    this.recount();
    if (!this.matches.length) return;
    this.current = (this.current + delta + this.matches.length) % this.matches.length;
    this.host.refresh();
    this.goToCurrent();
  }

  /** "1 of 3", "No results", or nothing before a query. */
  status(): string {
    if (!this.query) return "";
    this.recount();
    return this.matches.length ? `${this.current + 1} of ${this.matches.length}` : "No results";
  }

  /** Runs the core query over the whole session (history not loaded included). */
  async searchSession(): Promise<void> {
    const ref = this.host.ref();
    const query = this.query;
    if (!ref || !query) return;
    this.session = { query, state: "searching", hits: [], more: false };
    this.host.refresh();
    const result = await this.host.call("searchSession", { ref, query });
    if (this.session?.query !== query) return;
    this.session = { query, state: "done", hits: result?.hits ?? [], more: result?.more ?? false };
    this.host.refresh();
  }

  /**
   * Shows event `target.seq` of the shown session: pages back to it if it is older than
   * what is loaded (one round trip, one segment per page), scrolls to its row and
   * highlights it. A newer reveal or a switch of session drops an older one.
   */
  async reveal(target: RevealTarget): Promise<void> {
    const ref = this.host.ref();
    if (!ref) return;
    const mine = ++this.revealing;
    const c = this.host.conversation;
    // Asked even when the message is loaded (the answer is then no page): the request also
    // tells the host the reveal arrived, so a later reload does not get it again.
    const older = target.seq < c.firstSeq && c.hasOlder;
    const pages = await this.host.call("loadThrough", {
      ref,
      beforeSeq: older ? c.firstSeq : target.seq,
      seq: target.seq,
    });
    if (mine !== this.revealing || this.host.ref() !== ref) return;
    if (older) for (const page of pages ?? []) this.host.prepend(page);
    const key = rowKeyAt(c.items, target.seq) ?? c.items[0]?.key;
    if (!key) return;
    this.revealed = { key, ...(target.query ? { query: target.query } : {}) };
    this.host.refresh();
    this.host.list?.scrollToKey(key);
  }

  /** The reader moved on: a later show of this session is not a reveal. */
  forget(): void {
    this.wanted = undefined;
  }

  /** After a session was shown: the reveal it asked for, or the one still wanted for it. */
  afterShow(): void {
    if (this.wanted) void this.reveal(this.wanted.target);
  }

  /** A session is shown (again): nothing found or revealed before applies; `reveal` is what this show asks for. */
  reset(ref: SessionRef, reveal?: RevealTarget): void {
    const session = sessionKey(ref, ref.folderKey);
    if (reveal) this.wanted = { session, target: reveal };
    else if (this.wanted?.session !== session) this.wanted = undefined;
    this.revealing++;
    this.revealed = undefined;
    this.session = undefined;
    this.countedAt = "";
    this.matches = [];
    this.current = -1;
  }

  /** Marks the rendered rows: find matches while the bar has a query, else the revealed message's words. */
  decorate(): void {
    const list = this.host.list;
    if (!list) return;
    for (const [key, row] of list.renderedRows()) {
      const on = key === this.revealed?.key;
      row.classList.toggle("revealed", on);
      if (on) row.setAttribute("aria-current", "true");
      else row.removeAttribute("aria-current");
    }
    const query = this.open && this.query ? this.query : this.revealed?.query;
    const m = query ? matcher(query) : undefined;
    if (!m) return clearHighlights();
    const current = this.open && this.query ? this.matches[this.current] : undefined;
    const rows = [...list.renderedRows()];
    findStats.rowsMarked += rows.length;
    highlightRows(rows, m, current);
  }

  private goToCurrent(): void {
    const match = this.matches[this.current];
    if (match) this.host.list?.scrollToKey(match.key);
    this.decorate();
  }

  private recount(force = false): void {
    const c = this.host.conversation;
    const at = `${this.query}\u0000${c.items.length}:${c.firstSeq}:${c.lastSeq}`;
    if (!force && at === this.countedAt) return;
    this.countedAt = at;
    findStats.recounts++;
    const m = matcher(this.query);
    this.matches = m ? findMatches(c.items, m) : [];
    if (this.current >= this.matches.length) this.current = this.matches.length - 1;
  }
}
