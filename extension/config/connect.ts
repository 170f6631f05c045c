import * as vscode from "vscode";
import { checkConnection, probeModels } from "../../core/runtime";
import type { ConnectParams, ConnectResult, ListModelsParams, ListModelsResult } from "../../core/protocol";
import type { ProviderConfig } from "./providers";

/** How long Connect waits for VS Code to hand the saved settings back (they apply through onDidChangeConfiguration). */
const SETTINGS_APPLY_MS = 10_000;

/**
 * The chat's connect form, host side: lists a server's models, tests a connection, and
 * saves what works as a profile in the user settings (`downcity.providers`,
 * `downcity.defaultProvider`) with its key in SecretStorage only. The key is never
 * logged, returned or written anywhere else.
 */
export class Connector {
  constructor(
    private readonly config: ProviderConfig,
    private readonly restricted: () => string | undefined,
  ) {}

  /** Asked without a key (the form lists before the key is typed); `problem` says why nothing is listed. */
  async listModels({ kind, baseURL }: ListModelsParams): Promise<ListModelsResult> {
    const listed = await probeModels({ protocol: kind, baseURL });
    return listed.failure && listed.models.length === 0
      ? { models: [], problem: listed.failure.message }
      : { models: listed.models };
  }

  async connect({ kind, baseURL, model, apiKey }: ConnectParams): Promise<ConnectResult> {
    const key = apiKey?.trim() || undefined;
    const settings = vscode.workspace.getConfiguration("downcity");
    const scopes = settings.inspect<unknown[]>("providers");
    // A workspace's own list wins over the user's: a profile saved to the user settings would never apply.
    if (scopes?.workspaceValue !== undefined || scopes?.workspaceFolderValue !== undefined) {
      return {
        ok: false,
        message:
          "This workspace's settings define downcity.providers, which win over the user settings: add the profile there, or remove the workspace's list.",
      };
    }
    const check = await checkConnection({ protocol: kind, baseURL, ...(key ? { apiKey: key } : {}) }, model, {
      allowCall: this.restricted() === undefined,
    });
    if (!check.ok) return { ok: false, message: check.message, field: check.field };

    const saved = (scopes?.globalValue ?? []).filter(
      (p): p is Record<string, unknown> => typeof p === "object" && p !== null,
    );
    const same = saved.find((p) => p.protocol === kind && p.baseURL === baseURL);
    const id = typeof same?.id === "string" ? same.id : uniqueId(profileIdFor(baseURL), saved);
    // The key first: when the settings apply, the profile already has it.
    await this.config.setApiKey(id, key || undefined);
    const entry = { ...(same ?? {}), id, protocol: kind, baseURL, model };
    const providers = same ? saved.map((p) => (p === same ? entry : p)) : [...saved, entry];
    const applied = this.applied(id, model);
    await settings.update("providers", providers, vscode.ConfigurationTarget.Global);
    await settings.update("defaultProvider", id, vscode.ConfigurationTarget.Global);
    await applied;
    await this.config.select({ provider: id, model });
    return { ok: true, profileId: id, model };
  }

  /** Resolves once the provider config holds the profile with that model (bounded: settings a workspace overrides never apply). */
  private applied(id: string, model: string): Promise<void> {
    const holds = () => this.config.current.providers.some((p) => p.profile.id === id && p.model === model);
    return new Promise((resolve, reject) => {
      if (holds()) return resolve();
      const timer = setTimeout(() => {
        sub.dispose();
        reject(
          new Error(
            `the saved profile "${id}" did not take effect: does this workspace's downcity.providers setting override the user settings?`,
          ),
        );
      }, SETTINGS_APPLY_MS);
      const sub = this.config.onDidChange(() => {
        if (!holds()) return;
        clearTimeout(timer);
        sub.dispose();
        resolve();
      });
    });
  }
}

/** A readable profile id from the server: "local" (or "local-1234") for a loopback server, else its domain's name. */
export function profileIdFor(baseURL: string): string {
  const url = new URL(baseURL);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (host === "localhost" || host === "::1" || /^127\./.test(host)) return url.port ? `local-${url.port}` : "local";
  const labels = host.split(".").filter((l) => l && !/^(api|www)$/.test(l));
  const name = (labels.length > 1 ? labels[labels.length - 2]! : (labels[0] ?? "provider"))
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-");
  return name || "provider";
}

function uniqueId(base: string, saved: Record<string, unknown>[]): string {
  const taken = new Set(saved.map((p) => p.id));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}
