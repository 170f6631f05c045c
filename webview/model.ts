import type {
  AgentEvent,
  AgentEventOf,
  ApprovalPreview,
  ChatPage,
  ContentBlock,
  SessionEvent,
  ToolDetails,
  ToolResultPart,
} from "../core/protocol";
import { compactedText } from "../core/protocol";

export type ToolStatus = "called" | "approval" | "running" | "done" | "failed" | "refused" | "cancelled";

export interface ToolState {
  status: ToolStatus;
  output: string;
  result?: ToolResultPart[];
  details?: ToolDetails;
  preview?: ApprovalPreview;
  approvalSummary?: string;
  decision?: string;
  message?: string;
}

export type Item =
  | { kind: "user"; key: string; seq: number; blocks: ContentBlock[]; origin?: string; forkAt?: number }
  | { kind: "assistant"; key: string; seq?: number; blocks: ContentBlock[]; streaming: boolean; interrupted?: boolean; model?: string }
  | { kind: "summary"; key: string; text: string; throughSeq: number }
  | { kind: "compaction"; key: string; seq: number; text: string }
  | { kind: "notice"; key: string; level: string; text: string };

export type ItemOf<K extends Item["kind"]> = Extract<Item, { kind: K }>;

const OUTPUT_LIMIT = 64 * 1024;

/**
 * The conversation as rows, folded from session events (history pages, live appends)
 * and agent events (drafts, tool progress, approvals). Tracks which rows changed so
 * the list re-renders only those.
 */
export class Conversation {
  items: Item[] = [];
  readonly tools = new Map<string, ToolState>();
  /** toolCallId → key of the row whose card shows it. */
  private readonly toolRow = new Map<string, string>();
  readonly dirty = new Set<string>();
  firstSeq = 0;
  lastSeq = 0;
  hasOlder = false;
  /** Older pages loaded (for the coverage label). */
  loadedPages = 0;
  private draftKey: string | undefined;
  /** Seq of the turn/start just folded (a user message right after it belongs to that turn). */
  private turnStart: number | undefined;
  private noticeId = 0;
  title: string | undefined;
  /** Ratio of the window in use when compaction last happened (the meter's marker). */
  compactedAt: number | undefined;

  /** Replaces everything with the Active page. */
  reset(page: ChatPage): void {
    this.items = [];
    this.tools.clear();
    this.toolRow.clear();
    this.dirty.clear();
    this.draftKey = undefined;
    this.firstSeq = page.firstSeq;
    this.lastSeq = 0;
    this.hasOlder = page.hasOlder;
    this.loadedPages = 0;
    this.items = this.fold(page.events);
    this.lastSeq = Math.max(page.lastSeq, this.lastSeq);
    this.prependSummary(page);
  }

  /** An older page goes above what is shown; returns how many rows were added. */
  prepend(page: ChatPage): number {
    const before = this.items.length;
    // The summary above the newer page stays where it is, as the compaction boundary
    // (and the row the scroll position is anchored to).
    const saveLast = this.lastSeq;
    const rows = this.fold(page.events);
    this.lastSeq = saveLast;
    this.items = [...rows, ...this.items];
    this.firstSeq = page.firstSeq;
    this.hasOlder = page.hasOlder;
    this.loadedPages++;
    this.prependSummary(page);
    return this.items.length - before;
  }

  /** A live session event; ignored when already shown (replays after a catch-up). */
  append(event: SessionEvent): boolean {
    if (event.seq <= this.lastSeq) return false;
    const rows = this.fold([event]);
    for (const row of rows) this.push(row);
    return true;
  }

  applyAgent(event: AgentEvent): void {
    switch (event.type) {
      case "session-event":
        this.append(event.event);
        break;
      case "draft":
        this.setDraft(event.draftId, event.blocks);
        break;
      case "draft-cleared":
        this.clearDraft();
        break;
      case "tool-started":
        this.tool(event.toolCallId, (t) => (t.status = t.status === "approval" ? "approval" : "running"));
        break;
      case "tool-output":
        this.tool(event.toolCallId, (t) => {
          t.output = (t.output + event.update.text).slice(-OUTPUT_LIMIT);
        });
        break;
      case "tool-finished":
        this.tool(event.toolCallId, (t) => {
          t.status = event.outcome;
          if (event.details) t.details = event.details;
          if (event.message) t.message = event.message;
        });
        break;
      case "approval-requested":
        this.requestApproval(event);
        break;
      case "approval-resolved":
        this.tool(event.toolCallId, (t) => {
          t.decision = event.decision === "approved" ? (event.scope === "session" ? "allowed for this session" : "approved") : `denied${event.reason ? `: ${event.reason}` : ""}`;
          if (t.status === "approval") t.status = event.decision === "approved" ? "running" : "refused";
        });
        break;
      case "compaction-finished":
        if (event.closed > 0 || event.error) this.notice(event.error ? "warning" : "info", event.error ? `Compaction failed: ${event.error}` : `${compactedText(event.closed)}${event.note ? ` (${event.note})` : ""}`);
        break;
      case "notice":
        this.notice(event.level, event.message);
        break;
      case "turn-ended":
        if (event.reason === "error" && event.error) this.notice("error", event.error);
        this.clearDraft();
        break;
      default:
        break;
    }
  }

  requestApproval(event: AgentEventOf<"approval-requested">): void {
    this.tool(event.toolCallId, (t) => {
      t.status = "approval";
      t.approvalSummary = event.summary;
      if (event.preview) t.preview = event.preview;
    });
  }

  setDraft(draftId: string, blocks: ContentBlock[]): void {
    const key = this.draftKey ?? `draft:${draftId}`;
    const last = this.items[this.items.length - 1];
    if (this.draftKey && last?.key === key && last.kind === "assistant") {
      last.blocks = blocks;
    } else {
      this.draftKey = key;
      this.push({ kind: "assistant", key, blocks, streaming: true });
    }
    this.indexTools(key, blocks);
    this.dirty.add(key);
  }

  clearDraft(): void {
    if (!this.draftKey) return;
    const key = this.draftKey;
    this.draftKey = undefined;
    const index = this.items.findIndex((i) => i.key === key);
    if (index >= 0) this.items.splice(index, 1);
  }

  tool(toolCallId: string, change: (t: ToolState) => void): void {
    let state = this.tools.get(toolCallId);
    if (!state) this.tools.set(toolCallId, (state = { status: "called", output: "" }));
    change(state);
    const row = this.toolRow.get(toolCallId);
    if (row) this.dirty.add(row);
  }

  notice(level: string, text: string): void {
    this.push({ kind: "notice", key: `notice:${++this.noticeId}`, level, text });
  }

  private push(item: Item): void {
    // Live rows go before a draft still streaming, so the draft stays last.
    const last = this.items[this.items.length - 1];
    if (this.draftKey && last?.key === this.draftKey && item.key !== this.draftKey) this.items.splice(this.items.length - 1, 0, item);
    else this.items.push(item);
    this.dirty.add(item.key);
  }

  private prependSummary(page: ChatPage): void {
    if (page.summary && page.firstSeq > 1) {
      this.items.unshift({ kind: "summary", key: `summary:${page.firstSeq}`, text: page.summary, throughSeq: page.firstSeq - 1 });
    }
  }

  private indexTools(key: string, blocks: ContentBlock[]): void {
    for (const block of blocks) if (block.type === "tool-call") this.toolRow.set(block.id, key);
  }

  private fold(events: readonly SessionEvent[]): Item[] {
    const rows: Item[] = [];
    for (const event of events) {
      this.lastSeq = Math.max(this.lastSeq, event.seq);
      const data = (event.data ?? {}) as Record<string, unknown>;
      // "Fork from here" forks before the message's turn: the event just before it, when it opened one.
      const turnStart = this.turnStart;
      this.turnStart = event.type === "turn/start" ? event.seq : undefined;
      switch (event.type) {
        case "user/message": {
          const origin = data.origin as string | undefined;
          if (origin === "checkpoint" || origin === "system") break;
          const forkAt = (turnStart === event.seq - 1 ? turnStart : event.seq) - 1;
          rows.push({ kind: "user", key: `seq:${event.seq}`, seq: event.seq, blocks: blocksOf(data), ...(origin ? { origin } : {}), forkAt });
          break;
        }
        case "assistant/message": {
          // The final message takes the draft's row (and key), so nothing jumps.
          const key = this.draftKey ?? `seq:${event.seq}`;
          if (this.draftKey) this.clearDraft();
          const blocks = blocksOf(data);
          this.indexTools(key, blocks);
          for (const b of blocks) if (b.type === "tool-call") this.tool(b.id, () => undefined);
          rows.push({
            kind: "assistant",
            key,
            seq: event.seq,
            blocks,
            streaming: false,
            ...(data.interrupted ? { interrupted: true } : {}),
            ...(typeof data.model === "string" ? { model: data.model } : {}),
          });
          break;
        }
        case "tool/result": {
          const id = data.toolCallId as string;
          this.tool(id, (t) => {
            t.result = (data.content as ToolResultPart[]) ?? [];
            if (t.status === "called" || t.status === "running" || t.status === "approval") t.status = data.isError ? "failed" : "done";
          });
          break;
        }
        case "tool/approval": {
          const id = data.toolCallId as string;
          this.tool(id, (t) => (t.decision = String(data.decision) + (data.by === "policy" ? " by policy" : "")));
          break;
        }
        case "session/title":
          if (typeof data.title === "string") this.title = data.title;
          break;
        case "compaction/end": {
          const closed = Number(data.closed ?? 0);
          if (closed > 0) rows.push({ kind: "compaction", key: `seq:${event.seq}`, seq: event.seq, text: compactedText(closed) });
          break;
        }
        default:
          break;
      }
    }
    return rows;
  }
}

function blocksOf(data: Record<string, unknown>): ContentBlock[] {
  return Array.isArray(data.content) ? (data.content as ContentBlock[]) : [];
}
