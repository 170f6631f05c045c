import { html, nothing, type TemplateResult } from "lit-html";
import { CONNECT_KINDS, ConnectKind, type ConnectField } from "../../core/protocol";
import type { ConnectForm } from "../connect";

const OTHER = "\u0000other";

/**
 * The connect form (issue 19 item 3): provider kind, Base URL, Model (the server's list,
 * else free text), API key (a password field whose value never enters the app's state)
 * and Connect. `closable` when a provider is configured already (Add a model…).
 */
export function connectForm(form: ConnectForm, closable: boolean): TemplateResult {
  const s = form.state;
  const invalid = (field: ConnectField) => (s.error?.field === field ? "true" : "false");
  const described = (field: ConnectField, hint: string) => (s.error?.field === field ? `connect-error ${hint}` : hint);
  const submit = (e: Event) => {
    e.preventDefault();
    const el = e.currentTarget as HTMLFormElement;
    const value = (name: string) =>
      el.querySelector<HTMLInputElement | HTMLSelectElement>(`[data-connect-field="${name}"]`)?.value ?? "";
    const model = value("model");
    void form.submit(
      { baseURL: value("baseURL"), model: model === OTHER ? "" : model },
      el.querySelector<HTMLInputElement>('[data-connect-field="apiKey"]'),
    );
  };
  const modelField =
    s.models && !s.otherModel
      ? html`<select
          id="connect-model"
          aria-label="Model"
          data-connect-field="model"
          aria-invalid=${invalid("model")}
          aria-describedby=${described("model", "connect-model-hint")}
          @change=${(e: Event) => {
            const value = (e.currentTarget as HTMLSelectElement).value;
            if (value === OTHER) form.typeOtherModel();
            else form.setModel(value);
          }}
        >
          ${s.models.map((m) => html`<option value=${m} ?selected=${m === s.model}>${m}</option>`)}
          <option value=${OTHER}>Other…</option>
        </select>`
      : html`<input
          id="connect-model"
          type="text"
          aria-label="Model"
          data-connect-field="model"
          spellcheck="false"
          autocomplete="off"
          placeholder="e.g. llama3.1:8b, gpt-4o, claude-sonnet-4-5"
          .value=${s.model}
          aria-invalid=${invalid("model")}
          aria-describedby=${described("model", "connect-model-hint")}
          @change=${(e: Event) => form.setModel((e.currentTarget as HTMLInputElement).value)}
        />`;
  const modelHint = s.listing
    ? "Asking the server for its models…"
    : s.models && !s.otherModel
      ? `${s.models.length === 1 ? "The model" : `${s.models.length} models`} the server lists.`
      : (s.listProblem ?? "The model's name as the server knows it.");
  return html`<form class="connect-form" aria-label="Connect a model" novalidate @submit=${submit}>
    <h2><i aria-hidden="true" class="codicon codicon-plug"></i> Connect a model</h2>
    <p class="connect-intro">The key is kept in VS Code's secret storage; the rest is saved to your user settings.</p>
    <label for="connect-kind">Provider</label>
    <select
      id="connect-kind"
      aria-label="Provider"
      ?disabled=${s.connecting}
      @change=${(e: Event) => form.setKind(ConnectKind.parse((e.currentTarget as HTMLSelectElement).value))}
    >
      ${ConnectKind.options.map((k) => html`<option value=${k} ?selected=${k === s.kind}>${CONNECT_KINDS[k].label}</option>`)}
    </select>
    <label for="connect-base">Base URL</label>
    <input
      id="connect-base"
      type="url"
      aria-label="Base URL"
      data-connect-field="baseURL"
      spellcheck="false"
      autocomplete="off"
      .value=${s.baseURL}
      aria-invalid=${invalid("baseURL")}
      aria-describedby=${described("baseURL", "connect-base-hint")}
      @change=${(e: Event) => form.setBaseURL((e.currentTarget as HTMLInputElement).value)}
    />
    <p class="connect-hint" id="connect-base-hint">e.g. ${CONNECT_KINDS[s.kind].example}</p>
    <label for="connect-model">Model</label>
    ${modelField}
    <p class="connect-hint" id="connect-model-hint" aria-live="polite">${modelHint}</p>
    <label for="connect-key">API key</label>
    <input
      id="connect-key"
      type="password"
      aria-label="API key"
      data-connect-field="apiKey"
      autocomplete="off"
      spellcheck="false"
      placeholder="Not needed for most local servers"
      aria-invalid=${invalid("apiKey")}
      aria-describedby=${s.error?.field === "apiKey" ? "connect-error" : nothing}
    />
    ${s.error ? html`<p class="connect-error" id="connect-error" role="alert">${s.error.message}</p>` : nothing}
    <div class="connect-buttons">
      <button type="submit" class="primary" aria-busy=${s.connecting ? "true" : "false"} ?disabled=${s.connecting}>
        ${s.connecting ? html`<i aria-hidden="true" class="codicon codicon-loading codicon-modifier-spin"></i>` : nothing}Connect
      </button>
      ${closable ? html`<button type="button" class="secondary" ?disabled=${s.connecting} @click=${() => form.close()}>Cancel</button>` : nothing}
    </div>
  </form>`;
}
