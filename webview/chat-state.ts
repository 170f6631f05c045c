import type {
  ChatConfig,
  ChatMethod,
  ChatParams,
  ChatResult,
  ChatSessionItem,
  ChatSnapshot,
  ModelChoice,
  MovedChat,
  SessionEvent,
  SessionRef,
  SessionRules,
} from "../core/protocol";
import type { Conversation, Item } from "./conversation";
import type { VirtualList } from "./list";
import type { ComposerState } from "./views/composer";
import type { AgentAsk } from "./views/agent-confirm";

/** What the chat view knows of the shown session and of its own controls: the state every part of the app reads. */
export class ChatState {
  config: ChatConfig | undefined;
  snapshot: ChatSnapshot | undefined;
  /** Live events since the snapshot, kept so a reload restores them too. */
  liveEvents: SessionEvent[] = [];
  running = false;
  usage: ChatSnapshot["usage"];
  model: ModelChoice | undefined;
  readOnly: string | undefined;
  /** The header's title is being edited. */
  editingTitle = false;
  /** Why no session is shown: the one shown was deleted (said in the empty state). */
  closedMessage: string | undefined;
  /** The conversation moved to an editor tab: the placeholder names it and offers it back. */
  moved: MovedChat | undefined;
  /** The header's session list, while it is open. */
  sessions: ChatSessionItem[] | undefined;
  loadingEarlier = false;
  /** The rules files the shown session's next request uses (asked at each show and turn end). */
  rules: SessionRules | undefined;
  /** The agent the next new session uses (the picker, with no session open or before a confirmed switch). */
  chosenAgent: string | undefined;
  /** A switch of agent waiting for the user's answer: the open session cannot change agent. */
  agentAsk: AgentAsk | undefined;
  /** The host was asked to warm the model's SDK (once per document, on the first keystroke). */
  warmAsked = false;
  /** A first message is starting its session: Enter again must not start a second one. */
  starting = false;

  ref(): SessionRef | undefined {
    return this.snapshot?.ref;
  }
}

/** What the app's parts (resume, host events, session actions) use of the app. */
export interface ChatCore {
  readonly state: ChatState;
  readonly conversation: Conversation;
  readonly composer: ComposerState;
  readonly list: VirtualList<Item> | undefined;
  /** A host request; a failure is shown as a notice and gives undefined. */
  call<M extends ChatMethod>(method: M, params: ChatParams<M>): Promise<ChatResult<M> | undefined>;
  show(snapshot: ChatSnapshot): void;
  refresh(initial?: boolean): void;
  /** Focuses the message box (its text selected to the end when asked). */
  focusBox(atEnd?: boolean): void;
}
