// Over 350 lines: the conversation fold: one reducer over session and agent events, with its row types.
import type {
  AgentEvent,
  AgentEventOf,
  ApprovalPreview,
  CatchUp,
  ChatPage,
  ChatSnapshot,
  ContentBlock,
  RequestErrorData,
  SessionEvent,
  ToolApprovalData,
  ToolDetails,
  ToolResultData,
  ToolResultPart,
  TurnEndData,
} from "../core/protocol";
import { compactedText, denyReason } from "../core/protocol";

export type ToolStatus = "called" | "approval" | "running" | "done" | "failed" | "refused" | "cancelled";

export interface ToolState {
  status: ToolStatus;
  output: string;
  result?: ToolResultPart[];
  details?: ToolDetails;
  preview?: ApprovalPreview;
  approvalSummary?: string;
  /** An MCP server's tool, whose approval can be "always" (the host persists it). */
  mcp?: { server: string; tool: string };
  decision?: string;
  message?: string;
  /** An answer sent from this card, until the host confirms it (the card shows the outcome only then). */
  answering?: boolean;
  /** The card's "Deny with feedback…" field is open, holding this draft (never logged until sent). */
  feedback?: string;
  /** What takes focus on the card's next render: the reason field it opened, or the button it closed back to. */
  feedbackFocus?: "field" | "button";
  /** An Undo sent from this card, until the host logs it or says why not. */
  undoing?: boolean;
  /** The file whose applied edit was undone (a `tool/undo` in the log). */
  undone?: string;
}

/**
 * A request's failures in one turn, as one line updated in place: retrying, then either
 * recovered or the turn's error (with Retry while it is the last turn).
 */
export interface ProblemItem {
  kind: "problem";
  key: string;
  state: "retrying" | "recovered" | "failed";
  text: string;
  /** The last failed attempt's error (with its server). */
  error: string;
  attempts: number;
  server?: string;
  setting?: string;
  /** The failed turn's `turn/end` seq (what Retry retries). */
  turnEnd?: number;
  /** "offered": the last turn failed and Retry is shown; "retried": a later turn retried it. */
  retry?: "offered" | "retried" | "superseded";
}

export type Item =
  | {
      kind: "user";
      key: string;
      seq: number;
      time: number;
      blocks: ContentBlock[];
      origin?: string;
      queued?: boolean;
      undelivered?: boolean;
      forkAt?: number;
    }
  | {
      kind: "assistant";
      key: string;
      seq?: number;
      blocks: ContentBlock[];
      streaming: boolean;
      interrupted?: boolean;
      model?: string;
    }
  | { kind: "summary"; key: string; text: string; throughSeq: number }
  | { kind: "compaction"; key: string; seq: number; text: string }
  | { kind: "notice"; key: string; level: string; text: string }
  | ProblemItem;

export type ItemOf<K extends Item["kind"]> = Extract<Item, { kind: K }>;

const OUTPUT_LIMIT = 64 * 1024;

/**
 * The conversation as rows, folded from session events (history pages, live appends)
 * and agent events (drafts, tool progress, approvals). Tracks which rows changed so
 * the list re-renders only those.
 */
/** The reason the host gives an approval that Stop resolved (extension/approval/decisions.ts CANCELLED). */
const CANCELLED_REASON = "the turn was cancelled";

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
  /** The turn being folded: its start seq and its problem row, if a request failed in it. */
  private turn: { start: number; problem?: ProblemItem } | undefined;
  /** Where `fold` puts rows: the shown list (live, reset) or an older page's rows. */
  private target: Item[] = this.items;

  /** Replaces everything with the Active page. */
  reset(page: ChatPage): void {
    this.items = [];
    this.tools.clear();
    this.toolRow.clear();
    this.dirty.clear();
    this.draftKey = undefined;
    this.turnStart = undefined;
    this.firstSeq = page.firstSeq;
    this.lastSeq = 0;
    this.hasOlder = page.hasOlder;
    this.loadedPages = 0;
    this.turn = undefined;
    this.fold(page.events, this.items);
    this.lastSeq = Math.max(page.lastSeq, this.lastSeq);
    this.prependSummary(page);
  }

  /** What a view shows on open, switch or hello: the log's page, then the live draft and open approvals. */
  show(snapshot: Pick<ChatSnapshot, "page" | "title" | "draft" | "pendingApprovals">): void {
    this.reset(snapshot.page);
    // A new session has no title yet: the header must not keep the previous session's.
    this.title = snapshot.title;
    if (snapshot.draft) this.setDraft(snapshot.draft.draftId, snapshot.draft.blocks);
    for (const a of snapshot.pendingApprovals) this.requestApproval(a);
  }

  /** A restored view's catch-up: the events it missed, then the live state as it is now. */
  catchUp(
    delta: Extract<CatchUp, { kind: "delta" }>,
    append: (event: SessionEvent) => void = (e) => this.append(e),
  ): void {
    for (const event of delta.events) append(event);
    if (delta.title) this.title = delta.title;
    if (delta.draft) this.setDraft(delta.draft.draftId, delta.draft.blocks);
    else this.clearDraft();
    for (const a of delta.pendingApprovals) this.requestApproval(a);
  }

  /** An older page goes above what is shown; returns how many rows were added. */
  prepend(page: ChatPage): number {
    const before = this.items.length;
    // The summary above the newer page stays where it is, as the compaction boundary
    // (and the row the scroll position is anchored to).
    const saveLast = this.lastSeq;
    const saveTurn = this.turn;
    this.turn = undefined;
    const rows: Item[] = [];
    this.fold(page.events, rows);
    this.lastSeq = saveLast;
    this.turn = saveTurn;
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
    this.fold([event], this.items);
    return true;
  }

  /**
   * A live agent event. Only what the log does not hold yet is taken from it: the draft,
   * a running tool's streamed output, a pending approval, the host's own notices. Every
   * outcome, diff, error, retry and notice comes from the log events, so a reopened,
   * reloaded or recovered chat folds to the same rows.
   */
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
        this.tool(event.toolCallId, (t) => {
          if (t.status === "called") t.status = "running";
        });
        break;
      case "tool-output":
        this.tool(event.toolCallId, (t) => {
          if (t.result) return;
          t.output = (t.output + event.update.text).slice(-OUTPUT_LIMIT);
        });
        break;
      case "approval-requested":
        this.requestApproval(event);
        break;
      case "approval-resolved":
        this.tool(event.toolCallId, (t) => {
          t.answering = false;
          t.feedback = undefined;
          const cancelled = event.decision === "denied" && event.reason === CANCELLED_REASON;
          if (t.status === "approval")
            t.status = event.decision === "approved" ? "running" : cancelled ? "cancelled" : "refused";
        });
        break;
      case "notice":
        // A notice with a seq is in the log (folded from there); one without is the host's own.
        if (event.seq === undefined) this.notice(event.level, event.message);
        break;
      case "turn-ended":
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
      if (event.mcp) t.mcp = event.mcp;
    });
  }

  setDraft(draftId: string, blocks: ContentBlock[]): void {
    const key = this.draftKey ?? `draft:${draftId}`;
    const shown = this.draftKey ? this.items.findLast((i) => i.key === key) : undefined;
    if (shown?.kind === "assistant") {
      shown.blocks = blocks;
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
    // The bottom is the draft still streaming, then the queued messages waiting for it:
    // other rows go above both, a new draft above the queued ones, a queued one last.
    let at = this.items.length;
    if (!(item.kind === "user" && item.queued)) {
      const isQueued = (i: Item) => i.kind === "user" && i.queued === true && !i.undelivered;
      while (at > 0 && isQueued(this.items[at - 1]!)) at--;
      if (item.key !== this.draftKey && at > 0 && this.draftKey && this.items[at - 1]!.key === this.draftKey) at--;
    }
    this.items.splice(at, 0, item);
    this.dirty.add(item.key);
  }

  private prependSummary(page: ChatPage): void {
    if (page.summary && page.firstSeq > 1 && !this.items.some((i) => i.key === `summary:${page.firstSeq}`)) {
      this.items.unshift({
        kind: "summary",
        key: `summary:${page.firstSeq}`,
        text: page.summary,
        throughSeq: page.firstSeq - 1,
      });
    }
  }

  private indexTools(key: string, blocks: ContentBlock[]): void {
    for (const block of blocks) if (block.type === "tool-call") this.toolRow.set(block.id, key);
  }

  /** Folds log events into `target` (the shown rows, or an older page's): the one derivation live and replayed. */
  private fold(events: readonly SessionEvent[], target: Item[]): void {
    this.target = target;
    try {
      for (const event of events) this.foldOne(event);
    } finally {
      this.target = this.items;
    }
  }

  private add(item: Item): void {
    if (this.target === this.items) this.push(item);
    else this.target.push(item);
  }

  private update(item: Item): void {
    this.dirty.add(item.key);
  }

  private foldOne(event: SessionEvent): void {
    this.lastSeq = Math.max(this.lastSeq, event.seq);
    const data = (event.data ?? {}) as Record<string, unknown>;
    // "Fork from here" forks before the message's turn: the event just before it, when it opened one.
    const turnStart = this.turnStart;
    this.turnStart = event.type === "turn/start" ? event.seq : undefined;
    switch (event.type) {
      case "user/message": {
        const origin = data.origin as string | undefined;
        if (origin === "checkpoint" || origin === "system") break;
        // A queued steer moves to where it was delivered.
        if (typeof data.queuedSeq === "number") this.removeRow(`queued:${data.queuedSeq}`);
        const forkAt = (turnStart === event.seq - 1 ? turnStart : event.seq) - 1;
        this.add({
          kind: "user",
          key: `seq:${event.seq}`,
          seq: event.seq,
          time: event.time,
          blocks: blocksOf(data),
          ...(origin ? { origin } : {}),
          forkAt,
        });
        break;
      }
      case "user/queued":
        this.add({
          kind: "user",
          key: `queued:${event.seq}`,
          seq: event.seq,
          time: event.time,
          blocks: blocksOf(data),
          queued: true,
        });
        break;
      case "assistant/message": {
        // The final message takes the draft's row (and key), so nothing jumps.
        const key = this.draftKey ?? `seq:${event.seq}`;
        if (this.draftKey) this.clearDraft();
        const blocks = blocksOf(data);
        this.indexTools(key, blocks);
        for (const b of blocks) if (b.type === "tool-call") this.tool(b.id, () => undefined);
        const problem = this.turn?.problem;
        if (problem?.state === "retrying") {
          problem.state = "recovered";
          problem.text = `Answered after ${problem.attempts} failed ${problem.attempts === 1 ? "attempt" : "attempts"} (${problem.error})`;
          this.update(problem);
        }
        this.add({
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
        const result = data as unknown as ToolResultData;
        this.tool(result.toolCallId, (t) => {
          t.result = result.content ?? [];
          t.output = "";
          t.status = result.outcome ?? (result.isError ? "failed" : "done");
          if (result.details) t.details = result.details;
          if (t.status !== "done") {
            const line = firstLine(resultText(t.result));
            if (line) t.message = line;
          }
        });
        break;
      }
      case "tool/approval": {
        const approval = data as unknown as ToolApprovalData;
        this.tool(approval.toolCallId, (t) => (t.decision = decisionText(approval)));
        break;
      }
      case "tool/undo":
        this.tool(String(data.toolCallId), (t) => {
          t.undone = String(data.path);
          t.undoing = false;
        });
        break;
      case "session/title":
        if (typeof data.title === "string") this.title = data.title;
        break;
      case "turn/start":
        this.startTurn(event.seq, typeof data.retryOf === "number" ? data.retryOf : undefined);
        break;
      case "request/error":
        this.requestFailed(event.seq, data as unknown as RequestErrorData);
        break;
      case "turn/end":
        this.endTurn(event.seq, data as unknown as TurnEndData);
        break;
      case "notice":
        this.add({
          kind: "notice",
          key: `seq:${event.seq}`,
          level: String(data.level ?? "info"),
          text: String(data.message ?? ""),
        });
        break;
      case "compaction/end": {
        const closed = Number(data.closed ?? 0);
        // The summary goes at the boundary, as a reopened chat shows it above the Active page.
        if (typeof data.throughSeq === "number" && typeof data.summary === "string")
          this.insertSummary(data.throughSeq, data.summary);
        if (closed > 0)
          this.add({ kind: "compaction", key: `seq:${event.seq}`, seq: event.seq, text: compactedText(closed) });
        break;
      }
      case "compaction/error":
        this.add({
          kind: "notice",
          key: `seq:${event.seq}`,
          level: "warning",
          text: `Compaction failed: ${String(data.message ?? "")}`,
        });
        break;
      default:
        break;
    }
  }

  private startTurn(seq: number, retryOf: number | undefined): void {
    // A new turn takes Retry away from earlier failures (and marks the one it retries).
    for (let i = this.target.length - 1; i >= 0; i--) {
      const row = this.target[i]!;
      if (row.kind === "problem" && row.retry === "offered") {
        row.retry = row.turnEnd === retryOf ? "retried" : "superseded";
        this.update(row);
        break;
      }
    }
    this.turn = { start: seq };
  }

  private requestFailed(seq: number, error: RequestErrorData): void {
    const where = error.server ? ` (${error.server})` : "";
    // The attempt number is what changes between retries (a provider's retry-after is often the same each time):
    // without it the one line would not visibly update.
    const next =
      error.retryInMs === undefined
        ? ""
        : error.retryInMs > 0
          ? `: attempt ${error.attempt} failed, retrying in ${Math.round(error.retryInMs / 100) / 10} s`
          : `: attempt ${error.attempt} failed, retrying now`;
    const failure = `${error.message}${where}`;
    const text = `${failure}${next}`;
    const turn = (this.turn ??= { start: seq });
    const problem = turn.problem;
    if (problem) {
      problem.state = "retrying";
      problem.text = text;
      problem.error = failure;
      problem.attempts++;
      this.update(problem);
      return;
    }
    turn.problem = {
      kind: "problem",
      key: `problem:${turn.start}`,
      state: "retrying",
      text,
      error: failure,
      attempts: 1,
      ...(error.server ? { server: error.server } : {}),
      ...(error.setting ? { setting: error.setting } : {}),
    };
    this.add(turn.problem);
  }

  private endTurn(seq: number, end: TurnEndData): void {
    const problem = this.turn?.problem;
    this.turn = undefined;
    if (end.reason === "interrupted") {
      // Recovery closed a turn a crash left open: a steer still queued was never delivered.
      for (const row of this.target) {
        if (row.kind === "user" && row.queued && !row.undelivered) {
          row.undelivered = true;
          this.update(row);
        }
      }
      return;
    }
    if (end.reason !== "error") return;
    const facts = {
      state: "failed" as const,
      text: end.error ?? "the turn failed",
      turnEnd: seq,
      retry: "offered" as const,
      ...(end.server ? { server: end.server } : {}),
      ...(end.setting ? { setting: end.setting } : {}),
    };
    if (problem) {
      Object.assign(problem, facts);
      this.update(problem);
    } else {
      this.add({ kind: "problem", key: `seq:${seq}`, attempts: 0, error: facts.text, ...facts });
    }
  }

  private insertSummary(throughSeq: number, text: string): void {
    const key = `summary:${throughSeq + 1}`;
    if (this.target.some((i) => i.key === key)) return;
    const item: Item = { kind: "summary", key, text, throughSeq };
    const index = this.target.findIndex((i) => (rowSeq(i) ?? 0) > throughSeq);
    if (index < 0) this.add(item);
    else {
      this.target.splice(index, 0, item);
      this.dirty.add(key);
    }
  }

  private removeRow(key: string): void {
    const index = this.target.findIndex((i) => i.key === key);
    if (index >= 0) this.target.splice(index, 1);
  }
}

/** The log seq a row stands for, when it stands for one. */
function rowSeq(item: Item): number | undefined {
  if ("seq" in item && typeof item.seq === "number" && !item.key.startsWith("queued:")) return item.seq;
  const m = /^seq:(\d+)$/.exec(item.key);
  return m ? Number(m[1]) : undefined;
}

/** How an approval was decided, in the card's words (the same live and replayed). */
export function decisionText(d: Pick<ToolApprovalData, "decision" | "by" | "scope" | "reason">): string {
  // Stop answered it: nobody denied anything.
  if (d.decision === "denied" && d.reason === CANCELLED_REASON) return "cancelled";
  // Plain words (issue 19 item 7): a setting decided it, not a "policy".
  if (d.decision === "approved")
    return d.by === "policy"
      ? "auto-approved (setting)"
      : d.scope === "session"
        ? "allowed for this session"
        : d.scope === "always"
          ? "always allowed in this folder"
          : "approved";
  const by = d.by === "policy" ? " (setting)" : d.by === "restricted-mode" ? " (Restricted Mode)" : "";
  // The log is untrusted: a reason written there by hand is cut and flattened as a typed one is.
  const reason = denyReason(d.reason);
  return `denied${by}${reason ? `: ${reason}` : ""}`;
}

function resultText(parts: readonly ToolResultPart[]): string {
  return parts.map((p) => (p.type === "text" ? p.text : `[image ${p.mediaType}]`)).join("\n");
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

function blocksOf(data: Record<string, unknown>): ContentBlock[] {
  return Array.isArray(data.content) ? (data.content as ContentBlock[]) : [];
}
