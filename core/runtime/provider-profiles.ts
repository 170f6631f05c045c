import type { ModelClients } from "../llm/model-clients";
import type { ProviderProfile } from "../llm/types";
import { serverOf } from "../llm/endpoint";
import type { Endpoint } from "../agent/model-call";

/** The runtime's provider profiles, kept in step with the host's list, and where each points (for errors). */
export class ProviderProfiles {
  private readonly snapshots = new Map<string, string>();

  constructor(
    private readonly modelClients: ModelClients | undefined,
    private readonly providers: () => readonly ProviderProfile[] | Promise<readonly ProviderProfile[]>,
    private readonly providerSetting:
      ((provider: string, about: "server" | "window") => string | undefined) | undefined,
  ) {}

  /** The server a profile points at, and where it and the model's window are set, for errors that say what to check. */
  endpoint(provider: string): Endpoint {
    const profile = this.modelClients?.profile(provider);
    const server = profile ? serverOf(profile) : undefined;
    const where = (about: "server" | "window") =>
      this.providerSetting?.(provider, about) ?? `the provider profile "${provider}"`;
    return { ...(server ? { server } : {}), setting: where("server"), windowSetting: where("window") };
  }

  /** Re-reads the provider profiles; unchanged ones are kept (with what the runtime learnt of their servers). */
  async sync(): Promise<void> {
    if (!this.modelClients) return;
    const profiles: readonly ProviderProfile[] = await this.providers();
    const seen = new Set<string>();
    for (const profile of profiles) {
      seen.add(profile.id);
      const snapshot = JSON.stringify(profile);
      if (this.snapshots.get(profile.id) === snapshot) continue;
      this.modelClients.addProfile(profile);
      this.snapshots.set(profile.id, snapshot);
    }
    for (const id of this.snapshots.keys()) {
      if (seen.has(id)) continue;
      this.modelClients.removeProfile(id);
      this.snapshots.delete(id);
    }
  }
}
