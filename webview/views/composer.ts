import { html, nothing, type TemplateResult } from "lit-html";
import { live } from "lit-html/directives/live.js";
import type { ModelChoice } from "../../core/protocol";

export interface ComposerState {
  text: string;
  attachments: string[];
  suggestions: string[];
  /** Highlighted suggestion. */
  active: number;
  query?: string;
}

export interface ComposerHost {
  readonly composer: ComposerState;
  send(): Promise<void>;
  cancel(): void;
  refresh(): void;
  searchFiles(query: string): Promise<string[]>;
  selectModel(model: ModelChoice): void;
  chooseAgent(agentId: string): void;
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
}

const AT_QUERY = /(?:^|\s)@([^\s@]*)$/;
let searchSeq = 0;

async function updateSuggestions(host: ComposerHost, textarea: HTMLTextAreaElement): Promise<void> {
  const c = host.composer;
  const match = AT_QUERY.exec(textarea.value.slice(0, textarea.selectionStart));
  if (!match) {
    if (c.query !== undefined) {
      c.query = undefined;
      c.suggestions = [];
      host.refresh();
    }
    return;
  }
  c.query = match[1]!;
  const seq = ++searchSeq;
  const found = await host.searchFiles(c.query);
  if (seq !== searchSeq || c.query === undefined) return;
  c.suggestions = found.slice(0, 12);
  c.active = 0;
  host.refresh();
}

function pick(host: ComposerHost, path: string, textarea: HTMLTextAreaElement | null): void {
  const c = host.composer;
  if (!c.attachments.includes(path)) c.attachments.push(path);
  c.text = c.text.replace(/@[^\s@]*$/, "").replace(/\s+$/, c.text.length ? " " : "");
  c.query = undefined;
  c.suggestions = [];
  host.refresh();
  textarea?.focus();
}

function onKey(host: ComposerHost, e: KeyboardEvent): void {
  const c = host.composer;
  const textarea = e.currentTarget as HTMLTextAreaElement;
  if (c.suggestions.length) {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      c.active = (c.active + (e.key === "ArrowDown" ? 1 : c.suggestions.length - 1)) % c.suggestions.length;
      host.refresh();
      return;
    }
    if (e.key === "Enter" || e.key === "Tab") {
      e.preventDefault();
      pick(host, c.suggestions[c.active]!, textarea);
      return;
    }
    if (e.key === "Escape") {
      // Closes the suggestions only: the chat's Escape (stop the run) waits for the next one.
      e.preventDefault();
      c.suggestions = [];
      c.query = undefined;
      host.refresh();
      return;
    }
  }
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    c.text = textarea.value;
    void host.send();
  }
}

export function composer(host: ComposerHost, p: ComposerProps): TemplateResult {
  const c = host.composer;
  const modelKey = (m: ModelChoice) => `${m.provider}\u0000${m.model}`;
  return html`<footer class="composer">
    ${p.ask}
    ${p.readOnly ? html`<div class="read-only" role="status"><i aria-hidden="true" class="codicon codicon-lock"></i> Read-only: ${p.readOnly}</div>` : nothing}
    ${
      c.attachments.length
        ? html`<ul class="attachments" aria-label="Attached files">${c.attachments.map(
            (path) => html`<li class="chip"><i aria-hidden="true" class="codicon codicon-file"></i>${path}<button type="button" class="icon-button" aria-label="Remove ${path}" @click=${() => {
              c.attachments = c.attachments.filter((a) => a !== path);
              host.refresh();
            }}><i aria-hidden="true" class="codicon codicon-close"></i></button></li>`,
          )}</ul>`
        : nothing
    }
    ${
      c.suggestions.length
        ? html`<ul class="suggestions" role="listbox" id="file-suggestions" aria-label="Workspace files">${c.suggestions.map(
            (path, i) => html`<li role="option" id="file-option-${i}" aria-selected=${i === c.active ? "true" : "false"} class=${i === c.active ? "active" : ""} @mousedown=${(e: Event) => {
              e.preventDefault();
              pick(host, path, document.querySelector("textarea"));
            }}>${path}</li>`,
          )}</ul>`
        : nothing
    }
    <div class="input-row">
      <textarea
        aria-label="Message"
        placeholder=${p.running ? "Steer the running agent… (Esc stops)" : "Ask the agent… (@ to attach a file)"}
        rows="3"
        ?disabled=${p.disabled}
        aria-autocomplete="list"
        aria-controls=${c.suggestions.length ? "file-suggestions" : nothing}
        aria-activedescendant=${c.suggestions.length ? `file-option-${c.active}` : nothing}
        .value=${live(c.text)}
        @input=${(e: Event) => {
          const t = e.currentTarget as HTMLTextAreaElement;
          c.text = t.value;
          void updateSuggestions(host, t);
        }}
        @keydown=${(e: KeyboardEvent) => onKey(host, e)}
      ></textarea>
    </div>
    <div class="composer-bar">
      ${
        p.agents.length > 1
          ? html`<select aria-label="Agent" title="Agent" .value=${live(p.agentId ?? p.agents[0]!.id)} @change=${(e: Event) => host.chooseAgent((e.currentTarget as HTMLSelectElement).value)}>
              ${p.agents.map((a) => html`<option value=${a.id} ?selected=${a.id === (p.agentId ?? p.agents[0]!.id)}>${a.name}</option>`)}
            </select>`
          : nothing
      }
      ${
        p.models.length
          ? html`<select aria-label="Model" @change=${(e: Event) => {
              const m = p.models.find((x) => modelKey(x) === (e.currentTarget as HTMLSelectElement).value);
              if (m) host.selectModel(m);
            }}>
              ${p.model && !p.models.some((m) => modelKey(m) === modelKey(p.model!)) ? html`<option selected value=${modelKey(p.model)}>${p.model.model}</option>` : nothing}
              ${p.models.map((m) => html`<option value=${modelKey(m)} ?selected=${!!p.model && modelKey(m) === modelKey(p.model)}>${m.model} (${m.provider})</option>`)}
            </select>`
          : nothing
      }
      ${p.meter}
      <span class="spacer"></span>
      ${p.running ? html`<button type="button" class="secondary" aria-label="Stop" title="Stop (Esc)" @click=${() => host.cancel()}><i aria-hidden="true" class="codicon codicon-debug-stop"></i><span class="label">Stop</span></button>` : nothing}
      <button type="button" class="primary" aria-label="Send" title="Send (Enter)" ?disabled=${p.disabled} @click=${() => void host.send()}><i aria-hidden="true" class="codicon codicon-send"></i><span class="label">Send</span></button>
    </div>
  </footer>`;
}
