import { html, nothing, type TemplateResult } from "lit-html";
import { live } from "lit-html/directives/live.js";
import type { ModelChoice, ResolvedAttachment } from "../../core/protocol";
import { agentPicker } from "./agent-picker";
import { mentionChips } from "./mention-chips";
import { MENU_ID, mentionMenuView, optionId, type MentionMenu } from "./mention-menu";

export interface ComposerState {
  text: string;
  /** Picked mentions and dropped files, resolved: what the chips show and the next message sends. */
  attachments: ResolvedAttachment[];
}

export interface ComposerHost {
  readonly composer: ComposerState;
  readonly mentions: MentionMenu;
  send(): Promise<void>;
  cancel(): void;
  refresh(): void;
  selectModel(model: ModelChoice): void;
  chooseAgent(agentId: string): void;
  /** Files dragged from the Explorer (their URIs) become attachments. */
  dropUris(uris: string[]): void;
  /** The user typed into the box (the host warms the model's SDK on the first keystroke). */
  typed?(): void;
}

export interface ComposerProps {
  running: boolean;
  disabled: boolean;
  readOnly: string | undefined;
  models: ModelChoice[];
  model: ModelChoice | undefined;
  agents: { id: string; name: string }[];
  agentId: string | undefined;
  meter: TemplateResult | typeof nothing;
  /** The question asked when the picked agent cannot continue the open session. */
  ask: TemplateResult | typeof nothing;
  /** The rules files that apply to the session, as chips. */
  rules: TemplateResult | typeof nothing;
}

function onKey(host: ComposerHost, e: KeyboardEvent): void {
  const c = host.composer;
  const textarea = e.currentTarget as HTMLTextAreaElement;
  if (host.mentions.key(e, textarea)) return;
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    c.text = textarea.value;
    void host.send();
  }
}

/** The URIs a drop carries: VS Code's own list (Explorer, editor tabs), else the standard one. */
export function droppedUris(data: DataTransfer | null): string[] {
  const raw = data?.getData("application/vnd.code.uri-list") || data?.getData("text/uri-list") || "";
  return raw
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
}

const carriesUris = (data: DataTransfer | null) =>
  !!data && Array.from(data.types).some((t) => t === "application/vnd.code.uri-list" || t === "text/uri-list");

export function composer(host: ComposerHost, p: ComposerProps): TemplateResult {
  const c = host.composer;
  const modelKey = (m: ModelChoice) => `${m.provider}\u0000${m.model}`;
  return html`<footer
    class="composer"
    @dragover=${(e: DragEvent) => {
      if (!carriesUris(e.dataTransfer)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = "copy";
    }}
    @drop=${(e: DragEvent) => {
      const uris = droppedUris(e.dataTransfer);
      if (!uris.length) return;
      e.preventDefault();
      host.dropUris(uris);
    }}
  >
    ${p.ask}
    ${p.readOnly ? html`<div class="read-only" role="status"><i aria-hidden="true" class="codicon codicon-lock"></i> Read-only: ${p.readOnly}</div>` : nothing}
    ${p.rules}
    ${mentionChips(c.attachments, (i) => {
      c.attachments = c.attachments.filter((_a, j) => j !== i);
      host.refresh();
      document.querySelector<HTMLTextAreaElement>(".composer textarea")?.focus();
    })}
    ${mentionMenuView(host.mentions, () => document.querySelector<HTMLTextAreaElement>(".composer textarea"))}
    <div class="input-row">
      <textarea
        aria-label="Message"
        placeholder=${p.running ? "Steer the running agent… (Esc stops)" : "Ask the agent… (@ to mention a file, folder, problems…)"}
        rows="3"
        ?disabled=${p.disabled}
        aria-autocomplete="list"
        aria-controls=${host.mentions.open ? MENU_ID : nothing}
        aria-activedescendant=${host.mentions.open ? optionId(host.mentions.state!.active) : nothing}
        .value=${live(c.text)}
        @input=${(e: Event) => {
          const t = e.currentTarget as HTMLTextAreaElement;
          c.text = t.value;
          host.typed?.();
          void host.mentions.update(t.value.slice(0, t.selectionStart));
        }}
        @keydown=${(e: KeyboardEvent) => onKey(host, e)}
      ></textarea>
    </div>
    <div class="composer-bar">
      ${agentPicker(p.agents, p.agentId, (id) => host.chooseAgent(id))}
      ${
        p.models.length
          ? html`<select
              aria-label="Model"
              @change=${(e: Event) => {
                const m = p.models.find((x) => modelKey(x) === (e.currentTarget as HTMLSelectElement).value);
                if (m) host.selectModel(m);
              }}
            >
              ${p.model && !p.models.some((m) => modelKey(m) === modelKey(p.model!)) ? html`<option selected value=${modelKey(p.model)}>${p.model.model}</option>` : nothing}
              ${p.models.map((m) => html`<option value=${modelKey(m)} ?selected=${!!p.model && modelKey(m) === modelKey(p.model)}>${m.model} (${m.provider})</option>`)}
            </select>`
          : nothing
      }
      ${p.meter}
      <span class="spacer"></span>
      ${p.running ? html`<button type="button" class="secondary" aria-label="Stop" title="Stop (Esc)" @click=${() => host.cancel()}><i aria-hidden="true" class="codicon codicon-debug-stop"></i><span class="label">Stop</span></button>` : nothing}
      <button
        type="button"
        class="primary"
        aria-label="Send"
        title="Send (Enter)"
        ?disabled=${p.disabled}
        @click=${() => void host.send()}
      >
        <i aria-hidden="true" class="codicon codicon-send"></i><span class="label">Send</span>
      </button>
    </div>
  </footer>`;
}
