import { html, nothing, type TemplateResult } from "lit-html";
import { sameRef, type ChatSessionItem, type SessionRef } from "../../core/protocol";
import { iconButton } from "./icon-button";

export interface HeaderProps {
  ref: SessionRef | undefined;
  title: string;
  editingTitle: boolean;
  readOnly: boolean;
  /** The session list, while it is open. */
  sessions: ChatSessionItem[] | undefined;
}

export interface HeaderActions {
  /** The title button was clicked: it becomes an input. */
  editTitle(): void;
  /** The edit ended: with the new title on Enter, without one on Escape or blur. */
  endEdit(title?: string): void;
  toggleSessions(): void;
  newSession(): void;
  fork(ref: SessionRef): void;
  exportSession(ref: SessionRef): void;
  switchTo(ref: SessionRef): void;
}

/** The chat's header: the session's title (click to rename), Sessions, New, Fork and Export; the session list below it. */
export function chatHeader(p: HeaderProps, a: HeaderActions): TemplateResult {
  const { ref, title } = p;
  const titleView = p.editingTitle
    ? html`<input
        class="title-input"
        aria-label="Session title"
        .value=${title}
        @keydown=${(e: KeyboardEvent) => titleKey(e, a)}
        @blur=${() => a.endEdit()}
      />`
    : html`<button
        type="button"
        class="title"
        title="Rename"
        aria-label="Session title: ${title}. Rename"
        ?disabled=${!ref || p.readOnly}
        @click=${() => a.editTitle()}
      >
        ${title}
      </button>`;
  return html`<header class="chat-header">
      ${titleView}
      <span class="spacer"></span>
      ${iconButton({
        label: "Sessions",
        icon: "list-unordered",
        expanded: p.sessions !== undefined,
        onClick: () => a.toggleSessions(),
      })}
      ${iconButton({ label: "New session", icon: "add", onClick: () => a.newSession() })}
      ${iconButton({ label: "Fork session", icon: "repo-forked", disabled: !ref, onClick: () => ref && a.fork(ref) })}
      ${iconButton({
        label: "Export session",
        icon: "export",
        disabled: !ref,
        onClick: () => ref && a.exportSession(ref),
      })}
    </header>
    ${p.sessions ? sessionList(p.sessions, ref, a) : nothing}`;
}

function titleKey(e: KeyboardEvent, a: HeaderActions): void {
  const input = e.currentTarget as HTMLInputElement;
  if (e.key === "Escape") {
    // Leaves the edit only; the chat's Escape (stop the run) does not apply here.
    e.preventDefault();
    a.endEdit();
  } else if (e.key === "Enter") {
    a.endEdit(input.value.trim());
  }
}

function sessionList(sessions: ChatSessionItem[], current: SessionRef | undefined, a: HeaderActions): TemplateResult {
  return html`<nav class="session-list" aria-label="Sessions">
    <ul>
      ${sessions.map(
        (s) =>
          html`<li>
            <button
              type="button"
              class=${current && sameRef(s.ref, current) ? "current" : ""}
              @click=${() => a.switchTo(s.ref)}
            >
              ${s.running ? html`<i aria-hidden="true" class="codicon codicon-loading codicon-modifier-spin"></i>` : nothing}${s.title ?? s.ref.sessionId}
            </button>
          </li>`,
      )}
    </ul>
  </nav>`;
}
