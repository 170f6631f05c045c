import { randomUUID } from "node:crypto";
import type { AgentEvent, ContentBlock } from "../../core/protocol";
import type { SessionRef } from "../../core/session";
import { Sessions } from "../../core/storage";
import type { AgentProfile, ModelSelection, RunResult, WorkspaceRuntimeApi, WorkspaceRuntimeOptions } from "../../core/runtime/types";
import { Emitter } from "../../core/util/emitter";

/**
 * Stand-in for the core's `WorkspaceRuntime` (branch `seams`) until it lands on main:
 * the store operations are the real `Sessions`; runs are refused. Replaced by
 * `new WorkspaceRuntime(options)` in `./factory.ts`, then deleted.
 */
const INTERIM_AGENTS: readonly AgentProfile[] = [
  { id: "code", name: "Code" },
  { id: "ask", name: "Ask", forbiddenKinds: ["edit", "command"] },
];

export class InterimRuntime implements WorkspaceRuntimeApi {
  readonly root: string;
  readonly agents: readonly AgentProfile[];
  private readonly sessions: Sessions;
  private readonly events = new Emitter<{ event: [AgentEvent] }>();

  constructor(private readonly options: WorkspaceRuntimeOptions) {
    this.root = options.root;
    const extra = (options.agents ?? []).filter((a) => !INTERIM_AGENTS.some((b) => b.id === a.id));
    this.agents = [...INTERIM_AGENTS, ...extra];
    this.sessions = new Sessions({ root: options.root });
  }

  onEvent(listener: (event: AgentEvent) => void) {
    return this.events.on("event", listener);
  }
  onChange(listener: Parameters<Sessions["onChange"]>[0]) {
    return this.sessions.onChange(listener);
  }
  list(filter?: { agentId?: string; archived?: boolean }) {
    return this.sessions.list(filter);
  }
  create(agentId = "code") {
    return this.sessions.create({ agentId, id: `session-${randomUUID()}` });
  }
  open(ref: SessionRef) {
    return this.sessions.open(ref);
  }
  messages(ref: SessionRef, options?: { beforeSequence?: number }) {
    return this.sessions.messages(ref, options);
  }
  async prompt(_ref: SessionRef, _input: string | ContentBlock[], _options?: { model?: ModelSelection }): Promise<RunResult[]> {
    throw new Error(this.options.restricted?.() ?? "this build has no agent runtime yet (branch seams)");
  }
  steer(): void {}
  cancel(): void {}
  cancelAll(): void {}
  isRunning(): boolean {
    return false;
  }
  async compactNow(): Promise<{ closed: number; note?: string }> {
    throw new Error(this.options.restricted?.() ?? "this build has no agent runtime yet (branch seams)");
  }
  rename(ref: SessionRef, title: string) {
    return this.sessions.rename(ref, title);
  }
  fork(ref: SessionRef, options?: { atSeq?: number }) {
    return this.sessions.fork(ref, options);
  }
  archive(ref: SessionRef) {
    return this.sessions.archive(ref);
  }
  unarchive(ref: SessionRef) {
    return this.sessions.unarchive(ref);
  }
  delete(ref: SessionRef) {
    return this.sessions.delete(ref);
  }
  close() {
    return this.sessions.close();
  }
}
