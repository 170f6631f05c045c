import * as vscode from "vscode";
import { resolveEnvProvider, ProviderConfigError, type ResolvedProvider } from "../../core/runtime/before-first-draw";
import type { ProviderProfile } from "../../core/runtime";
import type { ModelChoice } from "../../core/protocol";
import { readSettings, type ProviderSetting, type Settings } from "./settings";

/** What the model picker, the status bar and the chat may see of a profile: never its key. */
export interface ProviderChoice {
  id: string;
  protocol: ProviderProfile["protocol"];
  baseURL?: string;
  model: string;
  contextWindow?: number;
  /** "settings" (downcity.providers) or "environment" (DOWNCITY_* of the extension host). */
  source: "settings" | "environment";
  hasKey: boolean;
}

const SELECTION_KEY = "downcity.model";
export const ENV_PROFILE_ID = "env";
export const secretKey = (profileId: string) => `downcity.apiKey.${profileId}`;

/**
 * Provider profiles from settings (keys from SecretStorage, one per profile), else the
 * one the extension host's environment gives, and the model the user selected.
 */
export class ProviderConfig implements vscode.Disposable {
  private settings: Settings;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly subscriptions: vscode.Disposable[] = [];
  /**
   * The keys as last read: a SecretStorage read is a round trip to the workbench (14–35 ms
   * here) that every run paid before its request left (issue 19, first token). Forgotten on
   * any change of the key (this window's writes at once, another window's by the event).
   */
  private readonly keys = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly state: vscode.Memento,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly onProblems: (problems: string[]) => void = () => {},
  ) {
    this.settings = readSettings();
    this.onProblems(this.settings.problems);
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration("downcity")) return;
        this.settings = readSettings(undefined, this.settings);
        this.onProblems(this.settings.problems);
        this.changed.fire();
      }),
      secrets.onDidChange((e) => {
        this.keys.delete(e.key);
        if (e.key.startsWith("downcity.apiKey.")) this.changed.fire();
      }),
    );
  }

  get current(): Settings {
    return this.settings;
  }

  /** The environment's profile, when no profile is configured and the environment names one. */
  private envProvider(): ResolvedProvider | undefined {
    if (this.settings.providers.length > 0) return undefined;
    try {
      return resolveEnvProvider(this.env, {}, ENV_PROFILE_ID);
    } catch (error) {
      if (error instanceof ProviderConfigError) return undefined;
      throw error;
    }
  }

  async choices(): Promise<ProviderChoice[]> {
    const env = this.envProvider();
    if (env)
      return [
        describe(env, "environment", (await this.key(ENV_PROFILE_ID)) !== undefined || envGivesKey(this.env, env)),
      ];
    return Promise.all(
      this.settings.providers.map(async (p) => describe(p, "settings", (await this.key(p.profile.id)) !== undefined)),
    );
  }

  /** Profiles with their keys, for the runtime only (called per run). */
  async profiles(): Promise<ProviderProfile[]> {
    const env = this.envProvider();
    if (env) {
      // A key set through Set API Key wins over the environment's (or its local-server placeholder).
      const stored = await this.key(ENV_PROFILE_ID);
      return [stored ? { ...env.profile, apiKey: stored } : env.profile];
    }
    return Promise.all(
      this.settings.providers.map(async ({ profile }) => {
        const apiKey = (await this.key(profile.id)) ?? (profile.baseURL ? "not-needed" : undefined);
        return apiKey ? { ...profile, apiKey } : { ...profile };
      }),
    );
  }

  /** The selected model, else the default provider's, else the first profile's. */
  selection(): ModelChoice | undefined {
    const saved = this.state.get<ModelChoice>(SELECTION_KEY);
    const env = this.envProvider();
    const known = env ? [env] : this.settings.providers;
    if (saved && known.some((p) => p.profile.id === saved.provider)) return saved;
    const chosen = known.find((p) => p.profile.id === this.settings.defaultProvider) ?? known[0];
    if (!chosen) return undefined;
    return chosen.contextWindow
      ? { provider: chosen.profile.id, model: chosen.model, contextWindow: chosen.contextWindow }
      : { provider: chosen.profile.id, model: chosen.model };
  }

  async select(selection: ModelChoice): Promise<void> {
    await this.state.update(SELECTION_KEY, selection);
    this.changed.fire();
  }

  /** Stores the profile's key, or deletes it (`undefined`). */
  async setApiKey(profileId: string, key: string | undefined): Promise<void> {
    const name = secretKey(profileId);
    this.keys.delete(name);
    try {
      if (key) await this.secrets.store(name, key);
      else await this.secrets.delete(name);
    } finally {
      // A read that raced the write may hold the old key.
      this.keys.delete(name);
    }
  }

  private key(profileId: string): Promise<string | undefined> {
    const name = secretKey(profileId);
    let read = this.keys.get(name);
    if (!read) {
      read = Promise.resolve(this.secrets.get(name));
      this.keys.set(name, read);
      // A failed read is not kept: the next one asks again.
      read.catch(() => this.keys.get(name) === read && this.keys.delete(name));
    }
    return read;
  }

  dispose(): void {
    this.subscriptions.forEach((d) => d.dispose());
    this.changed.dispose();
  }
}

/** True when the environment itself names a key (not the placeholder local servers get). */
function envGivesKey(env: NodeJS.ProcessEnv, provider: ResolvedProvider): boolean {
  return Boolean(
    env.DOWNCITY_API_KEY ??
    (provider.profile.protocol === "anthropic-messages" ? env.ANTHROPIC_API_KEY : env.OPENAI_API_KEY),
  );
}

function describe(
  p: ProviderSetting | ResolvedProvider,
  source: ProviderChoice["source"],
  hasKey: boolean,
): ProviderChoice {
  const choice: ProviderChoice = { id: p.profile.id, protocol: p.profile.protocol, model: p.model, source, hasKey };
  if (p.profile.baseURL) choice.baseURL = p.profile.baseURL;
  if (p.contextWindow) choice.contextWindow = p.contextWindow;
  return choice;
}
