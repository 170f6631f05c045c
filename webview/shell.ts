import { html, nothing, type TemplateResult } from "lit-html";
import type { ChatCore } from "./chat-state";
import type { ConnectForm } from "./connect";
import type { FindController } from "./find-controller";
import type { SessionActions } from "./session-actions";
import { agentConfirm } from "./views/agent-confirm";
import { composer, type ComposerHost } from "./views/composer";
import { connectForm } from "./views/connect-form";
import { emptyState, historyBar } from "./views/empty-state";
import { findBar } from "./views/find-bar";
import { chatHeader } from "./views/header";
import { jumpToLatest } from "./views/jump-to-latest";
import { pendingTokens } from "./views/mention-chips";
import { meterView } from "./views/meter";
import { rulesChips } from "./views/rules-chips";

/** What the shell's template reads of the app and calls back. */
export interface ShellApp extends ChatCore, Omit<ComposerHost, "refresh"> {
  readonly connect: ConnectForm;
  readonly find: FindController;
  readonly actions: SessionActions;
  newSession(agentId?: string): Promise<void>;
  loadEarlier(): Promise<void>;
  jumpToLatest(): void;
  /** Selects the title input once the header shows it. */
  selectTitle(): void;
}

/** The connect form shows with no provider configured, or when asked for (Add a model…). */
export function connectShown(app: ShellApp): boolean {
  const { config } = app.state;
  return Boolean(config && (!config.providerConfigured || app.connect.state.asked));
}

/** The chat's shell around the conversation's list: header, find bar, history bar, log area, empty state, composer. */
export function shellView(app: ShellApp): TemplateResult {
  const { state, conversation, actions } = app;
  const formShown = connectShown(app);
  // A form asked for over a configured chat replaces the composer (both have a "Model" field).
  const composerView =
    app.connect.state.asked && formShown
      ? nothing
      : composer(app, {
          running: state.running,
          disabled: !!state.readOnly || !!state.config?.restricted || state.starting,
          readOnly: state.readOnly ?? state.config?.restricted,
          // The form has its own "Model" field: no second one beside it.
          models: formShown ? [] : (state.config?.models ?? []),
          model: state.model,
          agents: state.config?.agents ?? [],
          agentId: state.agentAsk?.agentId ?? state.chosenAgent ?? state.snapshot?.ref.agentId,
          meter: meterView(state.usage, state.model, conversation.compactedAt, pendingTokens(app.composer.attachments)),
          ask: state.agentAsk ? agentConfirm(state.agentAsk, (start) => actions.answerAgentAsk(start)) : nothing,
          rules: rulesChips(state.rules, (path) => {
            const ref = state.ref();
            if (ref) void app.call("openRulesFile", { ref, path });
          }),
        });
  const header = chatHeader(
    {
      ref: state.ref(),
      title: conversation.title ?? "New session",
      editingTitle: state.editingTitle,
      readOnly: !!state.readOnly,
      sessions: state.sessions,
    },
    {
      editTitle: () => {
        state.editingTitle = true;
        app.refresh();
        app.selectTitle();
      },
      endEdit: (title) => {
        state.editingTitle = false;
        if (title) actions.rename(title);
        app.refresh();
      },
      toggleSessions: () => void actions.toggleSessions(),
      newSession: () => void app.newSession(),
      fork: (ref) => actions.forkSession(ref),
      exportSession: (ref) => actions.exportSession(ref),
      switchTo: (ref) => void actions.switchTo(ref),
    },
  );
  const empty = formShown
    ? connectForm(app.connect, !!state.config?.providerConfigured)
    : emptyState(
        {
          shown: !!state.snapshot,
          empty: conversation.items.length === 0,
          moved: state.moved,
          closedMessage: state.closedMessage,
        },
        { newSession: () => void app.newSession(), bringBack: ({ ref }) => void app.call("bringBack", { ref }) },
      );
  const history = state.snapshot
    ? historyBar(conversation.hasOlder, state.loadingEarlier, () => void app.loadEarlier())
    : nothing;
  const list = app.list;
  // The history bar scrolls with the conversation, above its first row: pinned above the log, "Start of session"
  // stayed on screen at the end of a long chat, over its first line in the editor chat.
  return html`${header}${findBar(app.find)}
    <div class="log-area">
      <div class="log-scroller" role="log" aria-label="Conversation" aria-live="polite" tabindex="0">
        ${history}
        <div class="log-inner"></div>
      </div>
      ${list && !list.pinned && conversation.items.length ? jumpToLatest(() => app.jumpToLatest()) : nothing}
    </div>
    ${empty}${composerView}`;
}
