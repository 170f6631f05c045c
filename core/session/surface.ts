import type { SessionEvent } from "../protocol";
import { isSurfaceType } from "../protocol";
import { SessionEventError } from "./errors";

/** A validated change to the Surface, computed before the event is committed. */
export type SurfacePlan =
  | { kind: "none" }
  | { kind: "append"; seq: number }
  | { kind: "replace"; seq: number; startIdx: number; count: number }
  /** A replace whose whole range was already closed into the summary: nothing to show. */
  | { kind: "absorbed"; seq: number };

/**
 * The model-visible Surface: an ordered list of event seqs (DESIGN §3, seed 003).
 * `plan()` validates a candidate without touching state; `commit()` applies it.
 *
 * `baseSeq` is the last seq closed into a segment. Surface nodes at or below it are
 * represented by the cumulative summary, so a replace reaching into that prefix only
 * shadows what is still visible (the same rule hot and cold).
 */
export class SurfaceManager {
  private nodeList: number[] = [];
  private generation = 0;

  constructor(private base = 0) {}

  get nodes(): readonly number[] {
    return this.nodeList;
  }
  /** Bumped on every replace (and reset): derived caches keyed on it must rebuild. */
  get replaceGeneration(): number {
    return this.generation;
  }
  get baseSeq(): number {
    return this.base;
  }

  plan(event: Pick<SessionEvent, "seq" | "type" | "surface" | "sources">): SurfacePlan {
    const op = event.surface;
    if (op === undefined) return { kind: "none" };
    if (!isSurfaceType(event.type)) {
      throw new SessionEventError(
        `${event.type} may not carry a surface op (only user/message, assistant/message, tool/result)`,
      );
    }
    if (op === "append") return { kind: "append", seq: event.seq };

    const { start, end } = op;
    if (end <= this.base) return { kind: "absorbed", seq: event.seq };
    const endIdx = this.nodeList.indexOf(end);
    if (endIdx < 0) throw new SessionEventError(`surface replace end ${end} is not on the Surface`);
    let startIdx: number;
    if (start <= this.base) {
      startIdx = 0;
    } else {
      startIdx = this.nodeList.indexOf(start);
      if (startIdx < 0) throw new SessionEventError(`surface replace start ${start} is not on the Surface`);
    }
    if (startIdx > endIdx) {
      throw new SessionEventError(`surface replace range ${start}..${end} is reversed on the Surface`);
    }
    const sources = new Set(event.sources ?? []);
    const missing = this.nodeList.slice(startIdx, endIdx + 1).filter((seq) => !sources.has(seq));
    if (missing.length > 0) {
      throw new SessionEventError(
        `surface replace sources must cover every shadowed seq; missing ${missing.join(", ")}`,
      );
    }
    return { kind: "replace", seq: event.seq, startIdx, count: endIdx - startIdx + 1 };
  }

  commit(plan: SurfacePlan): void {
    switch (plan.kind) {
      case "none":
      case "absorbed":
        return;
      case "append":
        this.nodeList.push(plan.seq);
        return;
      case "replace": {
        this.nodeList.splice(plan.startIdx, plan.count, plan.seq);
        this.generation++;
        return;
      }
    }
  }

  /** Starts over from an empty Surface above a new base (after a prefix was closed). */
  reset(baseSeq: number): void {
    this.base = baseSeq;
    this.nodeList = [];
    this.generation++;
  }
}
