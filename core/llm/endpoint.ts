import type { ProviderProfile } from "./types";

/** Where each protocol's SDK sends requests when a profile names no base URL. */
const DEFAULT_ORIGIN: Record<ProviderProfile["protocol"], string> = {
  "openai-chat": "https://api.openai.com",
  "openai-responses": "https://api.openai.com",
  "anthropic-messages": "https://api.anthropic.com",
};

/** host:port of the server a profile's requests go to (errors name it so the user knows what failed). */
export function serverOf(profile: Pick<ProviderProfile, "protocol" | "baseURL">): string | undefined {
  try {
    const url = new URL(profile.baseURL ?? DEFAULT_ORIGIN[profile.protocol]);
    const port = url.port || (url.protocol === "https:" ? "443" : url.protocol === "http:" ? "80" : "");
    return port ? `${url.hostname}:${port}` : url.hostname;
  } catch {
    return undefined;
  }
}
