import { lookupModel } from "./model-table";
import type { ModelCapabilities, ProviderProfile } from "./types";

/**
 * Capabilities of `model` on `profile`: the built-in table, then what the server
 * reported (a running local server knows its real window better than a name does), then
 * the profile's own override, which always wins. No entry anywhere leaves
 * `contextWindow` undefined: unknown, not guessed.
 */
export function resolveCapabilities(
  profile: ProviderProfile,
  model: string,
  serverContextWindow?: number,
): ModelCapabilities {
  const entry = lookupModel(profile.protocol, model);
  const caps: ModelCapabilities = { reasoning: false, images: true, ...entry };
  if (caps.contextWindow !== undefined) caps.contextWindowSource = "table";
  if (serverContextWindow !== undefined) {
    caps.contextWindow = serverContextWindow;
    caps.contextWindowSource = "server";
  }
  const override = profile.models?.[model];
  if (override) {
    for (const [key, value] of Object.entries(override)) {
      if (value !== undefined) (caps as unknown as Record<string, unknown>)[key] = value;
    }
    if (override.contextWindow !== undefined) caps.contextWindowSource = "profile";
  }
  return caps;
}
