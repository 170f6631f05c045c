import {
  CONNECT_KINDS,
  type ConnectField,
  type ConnectKind,
  type ConnectParams,
  type ConnectResult,
  type ListModelsParams,
  type ListModelsResult,
} from "../core/protocol";

/** What the connect form shows. The API key is not here: it stays in its password field until Connect reads it once. */
export interface ConnectState {
  /** Asked for (Add a model…) while a provider is configured; with none the form always shows. */
  asked: boolean;
  kind: ConnectKind;
  baseURL: string;
  /** The server's models; undefined until listed (or when it listed none). */
  models: string[] | undefined;
  listing: boolean;
  /** Why the server listed no models: the Model field is free text then. */
  listProblem: string | undefined;
  model: string;
  /** Free text although the server listed models ("Other…"). */
  otherModel: boolean;
  connecting: boolean;
  error: { message: string; field?: ConnectField } | undefined;
}

export interface ConnectCalls {
  listModels(params: ListModelsParams): Promise<ListModelsResult | undefined>;
  connect(params: ConnectParams): Promise<ConnectResult | undefined>;
  refresh(): void;
  /** After a successful Connect: the chat takes over (focus the message box). */
  connected(result: Extract<ConnectResult, { ok: true }>): void;
}

/** The connect form's behaviour: per-kind defaults, listing the server's models, Connect. */
export class ConnectForm {
  state: ConnectState = fresh("openai-chat");
  private listSeq = 0;
  private listedFor: string | undefined;

  constructor(private readonly calls: ConnectCalls) {}

  /** Opened by the host (Add a model…): starts clean. */
  ask(): void {
    this.state = { ...fresh(this.state.kind), asked: true };
    this.listedFor = undefined;
    this.calls.refresh();
  }

  close(): void {
    this.state = fresh(this.state.kind);
    this.listedFor = undefined;
    this.calls.refresh();
  }

  /** Lists the current Base URL's models once per kind + URL (called on render of the form and on change). */
  ensureListed(): void {
    const key = `${this.state.kind} ${this.state.baseURL.trim()}`;
    if (this.listedFor === key) return;
    this.listedFor = key;
    void this.list();
  }

  setKind(kind: ConnectKind): void {
    const s = this.state;
    // A Base URL the user did not change follows the kind.
    const baseURL = s.baseURL.trim() === CONNECT_KINDS[s.kind].baseURL ? CONNECT_KINDS[kind].baseURL : s.baseURL;
    this.state = { ...s, kind, baseURL, error: undefined };
    this.ensureListed();
    this.calls.refresh();
  }

  setBaseURL(baseURL: string): void {
    this.state = {
      ...this.state,
      baseURL,
      error: this.state.error?.field === "baseURL" ? undefined : this.state.error,
    };
    this.ensureListed();
    this.calls.refresh();
  }

  setModel(model: string): void {
    this.state = { ...this.state, model, error: this.state.error?.field === "model" ? undefined : this.state.error };
    this.calls.refresh();
  }

  /** "Other…" in the list: a free-text Model field. */
  typeOtherModel(): void {
    this.state = { ...this.state, otherModel: true, model: "" };
    this.calls.refresh();
  }

  private async list(): Promise<void> {
    const seq = ++this.listSeq;
    const { kind, baseURL } = this.state;
    this.state = { ...this.state, listing: true, listProblem: undefined };
    this.calls.refresh();
    const result = await this.calls.listModels({ kind, baseURL: baseURL.trim() }).catch(() => undefined);
    // A newer URL or kind was typed meanwhile: its listing wins.
    if (seq !== this.listSeq) return;
    const models = result?.models.length ? result.models : undefined;
    const model =
      models && !this.state.otherModel && !models.includes(this.state.model) ? models[0]! : this.state.model;
    this.state = {
      ...this.state,
      listing: false,
      models,
      model,
      listProblem: models
        ? undefined
        : (result?.problem ?? (result ? "The server lists no models: type the model's name." : undefined)),
    };
    this.calls.refresh();
  }

  /**
   * Tests and saves what the fields hold now (read from the form, so a Base URL typed
   * and submitted with Enter counts). The key is read from its password field once and
   * the field is cleared after a successful Connect.
   */
  async submit(fields: { baseURL: string; model: string }, keyInput: HTMLInputElement | null): Promise<void> {
    if (this.state.connecting) return;
    const baseURL = fields.baseURL.trim();
    const model = fields.model.trim();
    this.state = { ...this.state, baseURL, model };
    if (!baseURL) return this.fail({ message: "Type the server's Base URL.", field: "baseURL" });
    if (!model) return this.fail({ message: "Choose or type a model.", field: "model" });
    const kind = this.state.kind;
    this.state = { ...this.state, connecting: true, error: undefined };
    this.calls.refresh();
    const apiKey = keyInput?.value ?? "";
    const result = await this.calls.connect({ kind, baseURL, model, ...(apiKey ? { apiKey } : {}) });
    if (!result) return this.fail({ message: "Connect failed: see the message above." });
    if (!result.ok)
      return this.fail(result.field ? { message: result.message, field: result.field } : { message: result.message });
    if (keyInput) keyInput.value = "";
    this.state = fresh(kind);
    this.listedFor = undefined;
    this.calls.refresh();
    this.calls.connected(result);
  }

  private fail(error: NonNullable<ConnectState["error"]>): void {
    this.state = { ...this.state, connecting: false, error };
    this.calls.refresh();
    // The field to fix gets the focus (the message is announced by its alert role).
    if (error.field) document.querySelector<HTMLElement>(`[data-connect-field="${error.field}"]`)?.focus();
  }
}

function fresh(kind: ConnectKind): ConnectState {
  return {
    asked: false,
    kind,
    baseURL: CONNECT_KINDS[kind].baseURL,
    models: undefined,
    listing: false,
    listProblem: undefined,
    model: "",
    otherModel: false,
    connecting: false,
    error: undefined,
  };
}
