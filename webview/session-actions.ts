import type { ResolvedAttachment, SessionRef } from "../core/protocol";
import type { ChatCore } from "./chat-state";

/** A user message's text, as the composer takes it back (fork from here, edit and resend). */
function textOf(blocks: readonly { type: string; text?: string }[]): string {
  return blocks
    .map((b) => (b.type === "text" ? (b.text ?? "") : ""))
    .join("\n")
    .trim();
}

/**
 * What the user does to sessions from the chat: send (starting a session when none is open), start, switch, fork,
 * restore, page back, pick an agent. Each asks the host and shows what it answers.
 */
export class SessionActions {
  constructor(private readonly app: ChatCore) {}

  /**
   * "Fork from here" on a user message: a fork that ends before it, opened with the
   * message's text in the composer to edit and send. Before the first message there is no
   * history to keep: a new session of the same agent takes the text.
   */
  async forkFrom(seq: number): Promise<void> {
    const { app } = this;
    const ref = app.state.ref();
    const item = app.conversation.items.find((i) => i.kind === "user" && i.seq === seq);
    if (!ref || item?.kind !== "user") return;
    const text = textOf(item.blocks);
    const at = item.forkAt ?? seq - 1;
    const snapshot =
      at >= 1
        ? await app.call("fork", { ref, atSeq: at })
        : await app.call("newSession", {
            folderKey: ref.folderKey,
            ...(app.state.config?.agents.some((a) => a.id === ref.agentId) ? { agentId: ref.agentId } : {}),
          });
    if (!snapshot) return;
    app.show(snapshot);
    app.composer.text = text;
    app.refresh();
    app.focusBox(true);
  }

  /**
   * "Restore to Here" / "Edit and Resend": the host previews and restores; a conversation
   * continued in a fork is shown, and for a resend the message's text waits in the composer.
   */
  async restoreTo(seq: number, resend: boolean): Promise<void> {
    const { app } = this;
    const ref = app.state.ref();
    if (!ref) return;
    const item = app.conversation.items.find((i) => i.kind === "user" && i.seq === seq);
    const result = await app.call("restoreToMessage", { ref, seq, ...(resend ? { resend } : {}) });
    if (!result?.snapshot) return;
    app.show(result.snapshot);
    if (resend && item?.kind === "user") {
      app.composer.text = textOf(item.blocks);
      app.refresh();
      app.focusBox();
    }
  }

  async loadEarlier(): Promise<void> {
    const { app } = this;
    const ref = app.state.ref();
    if (!ref || app.state.loadingEarlier || !app.conversation.hasOlder) return;
    app.state.loadingEarlier = true;
    app.refresh();
    const page = await app.call("loadEarlier", { ref, beforeSeq: app.conversation.firstSeq });
    app.state.loadingEarlier = false;
    if (page) app.conversation.prepend(page);
    app.refresh();
  }

  /**
   * Sends the composer's message. With no session open (or a new agent chosen for an empty
   * one) it first starts a session of the selected agent: one step for the user. The text
   * goes back into the composer if it could not be sent, so nothing typed is lost.
   * `beforeSend` runs once the message left the composer (the find bar forgets its query).
   */
  async send(beforeSend: () => void): Promise<void> {
    const { app } = this;
    const { state, composer } = app;
    const text = composer.text.trim();
    if ((!text && !composer.attachments.length) || state.readOnly || state.config?.restricted || state.starting) return;
    const attachments = composer.attachments.slice();
    composer.text = "";
    composer.attachments = [];
    beforeSend();
    app.refresh();
    let ref = state.ref();
    const agentId = state.chosenAgent;
    const prompt = (to: SessionRef) =>
      app.call("prompt", { ref: to, text, ...(attachments.length ? { attachments } : {}) });
    let sending: ReturnType<typeof prompt> | undefined;
    if (!ref || (agentId && agentId !== ref.agentId)) {
      state.starting = true;
      try {
        const snapshot = await app.call("newSession", {
          ...(state.snapshot ? { folderKey: state.snapshot.ref.folderKey } : {}),
          ...(agentId ? { agentId } : {}),
        });
        if (!snapshot) return this.giveBack(text, attachments);
        ref = snapshot.ref;
        // Posted before the new session's first render (same task: no event can come between), so the
        // host starts the turn while the view draws (issue 19, first message → first token).
        sending = prompt(ref);
        app.show(snapshot);
        state.chosenAgent = undefined;
      } finally {
        state.starting = false;
      }
    }
    app.list?.follow();
    const sent = await (sending ?? prompt(ref));
    if (!sent) this.giveBack(text, attachments);
  }

  /** Puts an unsent message back, unless the user already typed another. */
  private giveBack(text: string, attachments: ResolvedAttachment[]): void {
    const { composer } = this.app;
    if (composer.text.trim()) return;
    composer.text = text;
    composer.attachments = attachments;
    this.app.refresh();
  }

  /**
   * The agent picker. An agent keeps its own sessions, so the open session cannot change
   * agent: with nothing said yet the next message starts a session of the chosen one;
   * otherwise the user is asked before a new session replaces this conversation.
   */
  chooseAgent(agentId: string): void {
    const { state, conversation } = this.app;
    const current = state.snapshot?.ref.agentId;
    state.agentAsk = undefined;
    if (!state.snapshot || agentId === current || (conversation.items.length === 0 && !state.running)) {
      state.chosenAgent = agentId === current ? undefined : agentId;
    } else {
      const name = (id: string | undefined) => state.config?.agents.find((a) => a.id === id)?.name ?? id ?? "";
      state.agentAsk = { agentId, agentName: name(agentId), currentName: name(current) };
    }
    this.app.refresh();
  }

  answerAgentAsk(start: boolean): void {
    const ask = this.app.state.agentAsk;
    this.app.state.agentAsk = undefined;
    if (start && ask) void this.newSession(ask.agentId);
    else this.app.refresh();
    this.app.focusBox();
  }

  async newSession(agentId?: string): Promise<void> {
    const { app } = this;
    const { state } = app;
    state.sessions = undefined;
    const agent = agentId ?? state.chosenAgent;
    const snapshot = await app.call("newSession", {
      ...(state.snapshot ? { folderKey: state.snapshot.ref.folderKey } : {}),
      ...(agent ? { agentId: agent } : {}),
    });
    if (!snapshot) return;
    state.chosenAgent = undefined;
    app.show(snapshot);
  }

  async switchTo(ref: SessionRef): Promise<void> {
    this.app.state.sessions = undefined;
    const snapshot = await this.app.call("switchSession", { ref });
    if (snapshot) this.app.show(snapshot);
  }

  /** The header's session list: opened with the host's list, or closed. */
  async toggleSessions(): Promise<void> {
    const { state } = this.app;
    if (state.sessions) state.sessions = undefined;
    else state.sessions = (await this.app.call("listSessions", {})) ?? [];
    this.app.refresh();
  }

  /** The header's title, renamed (the host writes it to the session's log). */
  rename(title: string): void {
    const ref = this.app.state.ref();
    if (title && ref) {
      this.app.conversation.title = title;
      void this.app.call("rename", { ref, title });
    }
  }

  /** The header's Fork: the whole session, shown. */
  forkSession(ref: SessionRef): void {
    void this.app.call("fork", { ref }).then((s) => s && this.app.show(s));
  }

  exportSession(ref: SessionRef): void {
    void this.app.call("exportSession", { ref });
  }
}
