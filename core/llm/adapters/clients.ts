import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import type { ProviderProfile } from "../types";
import { loadAnthropicSdk, loadOpenAISdk } from "./sdks";

type Fetch = typeof fetch;

/**
 * SDK clients built only from the profile: keys, base URL and headers never come from
 * the environment or local credential files (the host resolves them). `maxRetries: 0`:
 * the agent loop owns retries. Clients are cached per profile object and fetch.
 */
const openaiClients = new WeakMap<ProviderProfile, OpenAI>();
const anthropicClients = new WeakMap<ProviderProfile, Anthropic>();

export async function openaiClient(profile: ProviderProfile, fetchImpl?: Fetch): Promise<OpenAI> {
  let client = openaiClients.get(profile);
  if (!client) {
    const { default: OpenAI } = await loadOpenAISdk();
    const headers: Record<string, string | null> = { ...profile.headers };
    // A keyless local server: the SDK insists on a key, so give a placeholder and drop the header.
    if (!profile.apiKey) headers.Authorization = null;
    client = new OpenAI({
      apiKey: profile.apiKey || "no-key",
      adminAPIKey: null,
      organization: null,
      project: null,
      baseURL: profile.baseURL ?? "https://api.openai.com/v1",
      defaultHeaders: headers,
      maxRetries: 0,
      logLevel: "off",
      ...(profile.timeoutMs ? { timeout: profile.timeoutMs } : {}),
      ...(fetchImpl ? { fetch: fetchImpl } : {}),
    });
    openaiClients.set(profile, client);
  }
  return client;
}

let profileAnthropic: (new (options: ConstructorParameters<typeof Anthropic>[0]) => Anthropic) | undefined;

export async function anthropicClient(profile: ProviderProfile, fetchImpl?: Fetch): Promise<Anthropic> {
  let client = anthropicClients.get(profile);
  if (!client) {
    if (!profileAnthropic) {
      const { default: Base } = await loadAnthropicSdk();
      /** Never falls back to the SDK's default credential chain (files under the user's home). */
      profileAnthropic = class ProfileAnthropic extends Base {
        protected override _shouldResolveDefaultCredentials(): boolean {
          return false;
        }
      };
    }
    const ProfileAnthropic = profileAnthropic;
    // The key goes in x-api-key, the Messages API's own header and the one the connect form's
    // check sends: this SDK sends an `apiKey` as a bearer token, which a server or proxy that
    // checks x-api-key refuses (Connect passed, then every run got 401). The profile's own
    // headers still win; a keyless local server gets no Authorization either.
    const headers: Record<string, string | null> = profile.apiKey
      ? { "x-api-key": profile.apiKey, Authorization: null, ...profile.headers }
      : { ...profile.headers, Authorization: null };
    client = new ProfileAnthropic({
      apiKey: null,
      authToken: null,
      baseURL: profile.baseURL ?? "https://api.anthropic.com",
      defaultHeaders: headers,
      maxRetries: 0,
      logLevel: "off",
      ...(profile.timeoutMs ? { timeout: profile.timeoutMs } : {}),
      ...(fetchImpl ? { fetch: fetchImpl } : {}),
    });
    anthropicClients.set(profile, client);
  }
  return client;
}
