import type { ContentBlock, FinishReason, ReplayState, StreamChunk, Usage } from "../protocol";
import { partialToolArguments } from "./tool-arguments";

interface Entry {
  kind: "text" | "reasoning" | "tool-call";
  /** Accumulated text, reasoning text, or raw argument JSON. */
  text: string;
  id?: string;
  name?: string;
  complete: boolean;
  /** The authoritative block from `block-end`, when the adapter sent one. */
  final?: ContentBlock;
}

export interface AssembledMessage {
  content: ContentBlock[];
  usage?: Usage;
  finishReason?: FinishReason;
  replayState?: ReplayState;
}

/**
 * Folds a StreamChunk sequence into content blocks. Blocks are kept by stream index, so
 * interleaved deltas of parallel tool calls land in the right block. `blocks()` is a
 * complete snapshot at any moment (the streaming draft); it never mutates state.
 */
export class BlockAssembler {
  private readonly entries: Entry[] = [];
  private _usage?: Usage;
  private _finishReason?: FinishReason;
  private _replayState?: ReplayState;

  get usage(): Usage | undefined {
    return this._usage;
  }
  get finishReason(): FinishReason | undefined {
    return this._finishReason;
  }
  get replayState(): ReplayState | undefined {
    return this._replayState;
  }

  push(chunk: StreamChunk): void {
    switch (chunk.type) {
      case "block-start": {
        const b = chunk.block;
        this.entries[chunk.index] =
          b.type === "tool-call"
            ? { kind: "tool-call", text: "", id: b.id, name: b.name, complete: false }
            : { kind: b.type, text: "", complete: false };
        return;
      }
      case "text-delta":
        this.open(chunk.index, "text").text += chunk.text;
        return;
      case "reasoning-delta":
        this.open(chunk.index, "reasoning").text += chunk.text;
        return;
      case "tool-call-delta": {
        const entry = this.entries[chunk.index];
        // A delta for a call never announced has no id or name: nothing sane to build.
        if (!entry || entry.kind !== "tool-call") throw new Error(`tool-call-delta for unknown block ${chunk.index}`);
        entry.text += chunk.argumentsDelta;
        return;
      }
      case "block-end": {
        const entry = this.entries[chunk.index] ?? this.fromFinal(chunk.index, chunk.block);
        entry.complete = true;
        if (chunk.block) entry.final = chunk.block;
        return;
      }
      case "usage":
        this._usage = chunk.usage;
        return;
      case "finish":
        this._finishReason = chunk.reason;
        if (chunk.replayState) this._replayState = chunk.replayState;
        return;
    }
  }

  /**
   * The content so far, in stream order. Half-built tool calls carry best-effort parsed
   * arguments (or `{}`); `dropIncompleteToolCalls` leaves them out (used on cancel).
   * Empty text blocks are omitted: providers reject them in history.
   */
  blocks(options: { dropIncompleteToolCalls?: boolean } = {}): ContentBlock[] {
    const out: ContentBlock[] = [];
    for (const entry of this.entries) {
      if (!entry) continue;
      if (entry.final) {
        out.push(entry.final);
        continue;
      }
      switch (entry.kind) {
        case "text":
          if (entry.text !== "") out.push({ type: "text", text: entry.text });
          break;
        case "reasoning":
          out.push({ type: "reasoning", text: entry.text });
          break;
        case "tool-call":
          if (!entry.complete && options.dropIncompleteToolCalls) break;
          out.push({
            type: "tool-call",
            id: entry.id!,
            name: entry.name!,
            arguments: partialToolArguments(entry.text),
          });
          break;
      }
    }
    return out;
  }

  /** Ids of tool calls whose block has ended (safe to run). */
  completedToolCallIds(): string[] {
    const ids: string[] = [];
    for (const entry of this.entries) if (entry?.kind === "tool-call" && entry.complete) ids.push(entry.id!);
    return ids;
  }

  /** Whether a `finish` chunk has arrived. */
  get finished(): boolean {
    return this._finishReason !== undefined;
  }

  message(options?: { dropIncompleteToolCalls?: boolean }): AssembledMessage {
    const message: AssembledMessage = { content: this.blocks(options) };
    if (this._usage) message.usage = this._usage;
    if (this._finishReason) message.finishReason = this._finishReason;
    if (this._replayState) message.replayState = this._replayState;
    return message;
  }

  /** Deltas without a block-start open a block implicitly (lenient to adapters). */
  private open(index: number, kind: "text" | "reasoning"): Entry {
    let entry = this.entries[index];
    if (!entry) this.entries[index] = entry = { kind, text: "", complete: false };
    else if (entry.kind !== kind) throw new Error(`${kind}-delta for ${entry.kind} block ${index}`);
    return entry;
  }

  private fromFinal(index: number, block: ContentBlock | undefined): Entry {
    if (!block) throw new Error(`block-end for unknown block ${index}`);
    const kind = block.type === "tool-call" ? "tool-call" : block.type === "reasoning" ? "reasoning" : "text";
    const entry: Entry = { kind, text: "", complete: false };
    if (block.type === "tool-call") {
      entry.id = block.id;
      entry.name = block.name;
    }
    this.entries[index] = entry;
    return entry;
  }
}
