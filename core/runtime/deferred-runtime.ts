import type { AgentEvent, ContentBlock, ModelChoice } from "../protocol";
import type { SearchOptions } from "../protocol/search";
import type { DamagedFolder, ListFilter, LocalSessionRef, SessionChange, TranscriptFormat } from "../session";
import { createStorageContext } from "../storage/context";
import { listStored } from "../storage/list/list";
import { Emitter } from "../util/emitter";
import { hop } from "../util/hop-trace";
import { BUILTIN_AGENTS } from "./agents";
import type { RestoreApplyOptions, RestorePreview } from "./restore";
import { damagedDirOf, storedSessionAt } from "./stored-at";
import type { LiveOptions, WorkspaceRuntimeApi, WorkspaceRuntimeOptions } from "./types";

/**
 * A folder's runtime that is made at its first use beyond the list (issue 20: the Sessions tree's first draw).
 *
 * Evaluating the runtime's modules (the agent, the providers, the protocol's schemas) is most of what the extension
 * host spends loading the extension; the tree needs only the store's list. Until something else is asked, a list is
 * read from disk alone, which is what the runtime would answer too: a session of this window is in memory only once
 * the runtime made it. Listeners and settings given before are handed to the runtime when it is made.
 */
export class DeferredRuntime implements WorkspaceRuntimeApi {
  readonly root: string;
  private made: WorkspaceRuntimeApi | undefined;
  private readonly feed = new Emitter<{ change: [SessionChange]; event: [AgentEvent] }>();

  constructor(
    private options: WorkspaceRuntimeOptions,
    private readonly make: (options: WorkspaceRuntimeOptions) => WorkspaceRuntimeApi,
  ) {
    this.root = options.root;
  }

  /** The runtime, made now if it was not. */
  private runtime(): WorkspaceRuntimeApi {
    if (this.made) return this.made;
    hop("runtime made");
    const made = (this.made = this.make(this.options));
    made.onChange((change) => this.feed.emit("change", change));
    made.onEvent((event) => this.feed.emit("event", event));
    return made;
  }

  get agents() {
    return this.made ? this.made.agents : (this.options.agents ?? BUILTIN_AGENTS);
  }

  updateOptions(options: LiveOptions): void {
    if (this.made) this.made.updateOptions(options);
    else this.options = { ...this.options, ...options };
  }

  onEvent(listener: (event: AgentEvent) => void) {
    return this.feed.on("event", listener);
  }

  onChange(listener: (change: SessionChange) => void) {
    return this.feed.on("change", listener);
  }

  list(filter: ListFilter = {}) {
    // Another backend than the JSONL store lists only through the runtime.
    if (this.made || this.options.persistence) return this.runtime().list(filter);
    return listStored(createStorageContext({ ...this.options.storage, root: this.root }), filter);
  }

  damagedDir(folder: DamagedFolder): string {
    return damagedDirOf(this.root, folder);
  }

  storedItemAt(metaPath: string) {
    return storedSessionAt(this.root, metaPath);
  }

  // Nothing runs before the runtime is made: these need not make it.
  cancel(ref: LocalSessionRef): void {
    this.made?.cancel(ref);
  }
  cancelAll(): void {
    this.made?.cancelAll();
  }
  isRunning(ref: LocalSessionRef): boolean {
    return this.made?.isRunning(ref) ?? false;
  }
  async close(): Promise<void> {
    await this.made?.close();
  }

  // The rest is the runtime's.
  sessionDir(ref: LocalSessionRef, options?: { archived?: boolean }) {
    return this.runtime().sessionDir(ref, options);
  }
  history(ref: LocalSessionRef, options?: { signal?: AbortSignal }) {
    return this.runtime().history(ref, options);
  }
  exportTranscript(ref: LocalSessionRef, format: TranscriptFormat, options?: { title?: string; signal?: AbortSignal }) {
    return this.runtime().exportTranscript(ref, format, options);
  }
  async deleteDamaged(folder: DamagedFolder): Promise<void> {
    const runtime = this.runtime();
    if (!runtime.deleteDamaged) throw new Error("this folder's store cannot delete damaged folders");
    await runtime.deleteDamaged(folder);
  }
  create(agentId?: string, sessionId?: string) {
    return this.runtime().create(agentId, sessionId);
  }
  open(ref: LocalSessionRef) {
    return this.runtime().open(ref);
  }
  messages(ref: LocalSessionRef, options?: { beforeSequence?: number }) {
    return this.runtime().messages(ref, options);
  }
  prompt(
    ref: LocalSessionRef,
    input: string | ContentBlock[],
    options?: { model?: ModelChoice; whenRunning?: "steer" | "queue" },
  ) {
    return this.runtime().prompt(ref, input, options);
  }
  steer(ref: LocalSessionRef, input: string | ContentBlock[]): void {
    this.runtime().steer(ref, input);
  }
  retry(ref: LocalSessionRef, options?: { model?: ModelChoice }) {
    return this.runtime().retry(ref, options);
  }
  compactNow(ref: LocalSessionRef, options?: { signal?: AbortSignal }) {
    return this.runtime().compactNow(ref, options);
  }
  rename(ref: LocalSessionRef, title: string) {
    return this.runtime().rename(ref, title);
  }
  fork(ref: LocalSessionRef, options?: { atSeq?: number }) {
    return this.runtime().fork(ref, options);
  }
  archive(ref: LocalSessionRef) {
    return this.runtime().archive(ref);
  }
  unarchive(ref: LocalSessionRef) {
    return this.runtime().unarchive(ref);
  }
  delete(ref: LocalSessionRef) {
    return this.runtime().delete(ref);
  }
  search(options: SearchOptions) {
    return this.runtime().search(options);
  }
  rules(ref: LocalSessionRef) {
    return this.runtime().rules(ref);
  }
  restorePoint(ref: LocalSessionRef, messageSeq: number) {
    return this.runtime().restorePoint(ref, messageSeq);
  }
  previewRestore(ref: LocalSessionRef, toSeq: number) {
    return this.runtime().previewRestore(ref, toSeq);
  }
  previewUndoRestore(ref: LocalSessionRef) {
    return this.runtime().previewUndoRestore(ref);
  }
  applyRestore(ref: LocalSessionRef, plan: RestorePreview, options: RestoreApplyOptions) {
    return this.runtime().applyRestore(ref, plan, options);
  }
  async warm(): Promise<void> {
    await this.runtime().warm?.();
  }
}
