import { sameRef, type ChatConfig, type ChatSnapshot, type MovedChat, type SessionEvent } from "../core/protocol";
import type { ChatCore } from "./chat-state";
import type { VsCodeApi } from "./rpc";

/** What survives a hide / reload: enough to paint at once, then a catch-up asks for the rest. */
interface SavedState {
  v: 1;
  snapshot: ChatSnapshot;
}
const SAVE_LIMIT = 2_000_000;

/** What resuming needs of the app beyond its core. */
export interface ResumeHost extends ChatCore {
  setConfig(config: ChatConfig): void;
  close(message: string | undefined, moved?: MovedChat): void;
  appendEvent(event: SessionEvent): void;
  /** The host asked for the connect form. */
  askConnect(): void;
}

/**
 * The view's own copy of what it shows, in the webview state VS Code keeps across a hide or a reload: written
 * (debounced) after the log changed, read at start to paint before the host answers.
 */
export class SavedView {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The log's last seq when the state was last scheduled to be saved. */
  savedSeq = -1;

  constructor(private readonly api: VsCodeApi) {}

  save(app: ChatCore): void {
    const { state, conversation } = app;
    if (this.timer || !state.snapshot) return;
    this.savedSeq = conversation.lastSeq;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!state.snapshot) return;
      const page = state.snapshot.page;
      const events = [...page.events, ...state.liveEvents];
      const saved: SavedState = {
        v: 1,
        snapshot: {
          ...state.snapshot,
          title: conversation.title,
          page: { ...page, events, lastSeq: conversation.lastSeq },
          draft: undefined,
          pendingApprovals: [],
          running: state.running,
          usage: state.usage,
        },
      };
      // A huge Active page is not worth storing: the host resends it on reload.
      if (JSON.stringify(saved).length > SAVE_LIMIT) this.api.setState(undefined);
      else this.api.setState(saved);
    }, 300);
  }

  /** Nothing of the shown session stays saved (it was deleted or moved). */
  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.api.setState(undefined);
  }

  /** The view's start: paint the saved session at once and catch up on what it missed, or ask the host what to show. */
  async resume(app: ResumeHost): Promise<void> {
    const saved = this.api.getState() as SavedState | undefined;
    if (saved?.v === 1 && saved.snapshot) return resumeSaved(app, saved.snapshot);
    const hello = await app.call("hello", {});
    if (!hello) return;
    app.setConfig(hello.config);
    if (hello.connect) app.askConnect();
    if (hello.snapshot) app.show(hello.snapshot);
    else if (hello.moved) app.close(undefined, hello.moved);
    else app.refresh();
  }
}

async function resumeSaved(app: ResumeHost, savedSnapshot: ChatSnapshot): Promise<void> {
  const { state } = app;
  // Paint what the view had before it was hidden, then fetch only what it missed.
  app.show(savedSnapshot);
  const hello = await app.call("hello", { restore: savedSnapshot.ref });
  // A session shown from outside (a command, the tree) while the view was hidden wins
  // over the saved one: it is shown, and nothing of the replaced session is caught up.
  const outside = hello?.snapshot && !sameRef(hello.snapshot.ref, savedSnapshot.ref) ? hello.snapshot : undefined;
  // The model may have changed while the view was hidden.
  if (hello?.snapshot && !outside) state.model = hello.snapshot.model;
  if (hello) app.setConfig(hello.config);
  if (hello?.connect) app.askConnect();
  if (hello?.moved) return app.close(undefined, hello.moved);
  if (hello && !hello.snapshot) {
    // The saved session no longer opens (deleted while this view was away).
    app.close(
      "This session was deleted or can no longer be opened. Start a new session, or open another one from the Sessions view.",
    );
    return;
  }
  if (outside) {
    app.show(outside);
    return;
  }
  // A switch that arrived meanwhile (a session-switched event, a click) is what the view shows now.
  const switched = () => !sameRef(state.ref()!, savedSnapshot.ref);
  if (switched()) return;
  const catchUp = await app.call("catchUp", { ref: savedSnapshot.ref, afterSeq: app.conversation.lastSeq });
  if (switched()) return;
  if (catchUp?.kind === "reset") app.show(catchUp.snapshot);
  else if (catchUp) {
    app.conversation.catchUp(catchUp, (event) => app.appendEvent(event));
    state.running = catchUp.running;
    state.usage = catchUp.usage;
    state.readOnly = catchUp.readOnly;
    app.refresh();
  }
}
