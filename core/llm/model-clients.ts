import type { GenerateOptions, StreamChunk } from "../protocol";
import { AnthropicMessagesAdapter } from "./adapters/anthropic-messages";
import { OpenAIChatAdapter } from "./adapters/openai-chat";
import { OpenAIResponsesAdapter } from "./adapters/openai-responses";
import { preloadFetch, preloadSdk } from "./adapters/sdks";
import { resolveCapabilities } from "./capabilities";
import { abortedError, normalizeError } from "./errors";
import { replayAdapterId, stripForeignReplayState } from "./replay";
import { queryServerContextWindow } from "./server-context";
import { validateProfile } from "./profile";
import { hop } from "../util/hop-trace";
import {
  LlmError,
  type LlmAdapter,
  type LlmClient,
  type ModelCapabilities,
  type PreparedCall,
  type Protocol,
  type ProviderProfile,
} from "./types";

export interface ModelClientsOptions {
  profiles?: ProviderProfile[];
  /** Defaults to the three built-in adapters. */
  adapters?: LlmAdapter[];
  /** Used by the built-in adapters and server capability queries (tests, proxies). */
  fetch?: typeof fetch;
}

/** A failed server query is asked again after this long; a success is kept. */
const UNKNOWN_RETRY_MS = 60_000;

interface ServerWindow {
  value: Promise<number | undefined>;
  at: number;
  /** Set once the server answered with a number. */
  settled?: number;
}

/**
 * The LLM call layer's clients: the provider profiles and one adapter per protocol. Routes calls to the adapter of
 * the profile's protocol, resolves model capabilities,
 * binds defaults, strips foreign replayState, and normalises every failure (also
 * mid-stream) to an LlmError.
 */
export class ModelClients implements LlmClient {
  private readonly adapters = new Map<Protocol, LlmAdapter>();
  private readonly profiles = new Map<string, ProviderProfile>();
  private readonly serverWindows = new Map<string, ServerWindow>();
  private readonly fetchImpl: typeof fetch;
  /** The SDKs fetch with Node's own fetch (none was given): `warm` loads it too. */
  private readonly globalFetch: boolean;

  constructor(options: ModelClientsOptions = {}) {
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.globalFetch = !options.fetch;
    const adapters = options.adapters ?? [
      new OpenAIChatAdapter(options.fetch),
      new OpenAIResponsesAdapter(options.fetch),
      new AnthropicMessagesAdapter(options.fetch),
    ];
    for (const adapter of adapters) this.register(adapter);
    for (const profile of options.profiles ?? []) this.addProfile(profile);
  }

  /** Registers (or replaces) the adapter for its protocol. */
  register(adapter: LlmAdapter): void {
    this.adapters.set(adapter.protocol, adapter);
  }

  /** Adds or replaces a profile. It is validated and snapshotted: later edits to the object do not leak in. */
  addProfile(profile: ProviderProfile): void {
    const snapshot = validateProfile(profile);
    this.profiles.set(snapshot.id, snapshot);
    for (const key of this.serverWindows.keys()) if (key.startsWith(`${snapshot.id}\0`)) this.serverWindows.delete(key);
  }

  removeProfile(id: string): boolean {
    return this.profiles.delete(id);
  }

  profile(id: string): ProviderProfile | undefined {
    return this.profiles.get(id);
  }

  /**
   * Binds one call: adapter, profile snapshot, capabilities known now (table, profile,
   * server values already fetched by `capabilities()`), and adapter defaults.
   */
  prepareCall(options: GenerateOptions): PreparedCall {
    const profile = this.requireProfile(options);
    const adapter = this.adapters.get(profile.protocol);
    if (!adapter) throw new LlmError("bad-request", `no adapter registered for protocol "${profile.protocol}"`);
    if (!Array.isArray(options.messages)) throw new LlmError("bad-request", "options.messages must be an array");
    const capabilities = resolveCapabilities(
      profile,
      options.model,
      this.cachedServerWindow(profile.id, options.model),
    );
    return this.bind(adapter, profile, capabilities, options);
  }

  /** Streams one call. Resolves capabilities first (may ask a local server once per model). */
  async *stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
    const profile = this.requireProfile(options);
    await this.capabilities(profile.id, options.model);
    hop("llm capabilities");
    yield* this.prepareCall(options).stream();
  }

  /**
   * Loads the SDK of `provider`'s protocol now, so its first call does not pay for it (it is
   * loaded on first use to keep start-up light: about 250 ms of module evaluation here), and
   * Node's fetch, which loads on the process's first fetch (50–150 ms here): that is the
   * floor's cost too, but no reason for the first message to pay it.
   */
  async warm(provider: string): Promise<void> {
    const profile = this.profiles.get(provider);
    if (profile) await Promise.all([preloadSdk(profile.protocol), this.globalFetch ? preloadFetch() : undefined]);
  }

  /** Table → server (local servers that report it) → profile override. */
  async capabilities(provider: string, model: string): Promise<ModelCapabilities> {
    const profile = this.profiles.get(provider);
    if (!profile) throw new LlmError("bad-request", `unknown provider profile "${provider}"`);
    return resolveCapabilities(profile, model, await this.serverWindow(profile, model));
  }

  private bind(
    adapter: LlmAdapter,
    profile: ProviderProfile,
    capabilities: ModelCapabilities,
    options: GenerateOptions,
  ): PreparedCall {
    const adapterId = replayAdapterId(profile);
    const defaults = adapter.defaults?.(options, profile, capabilities) ?? {};
    const bound: GenerateOptions = { ...options };
    for (const [key, value] of Object.entries(defaults)) {
      if ((bound as Record<string, unknown>)[key] === undefined) (bound as Record<string, unknown>)[key] = value;
    }
    bound.messages = stripForeignReplayState(options.messages, adapterId);
    const run = (call: GenerateOptions) => this.run(adapter, profile, capabilities, call);
    return {
      provider: profile.id,
      model: options.model,
      protocol: profile.protocol,
      adapterId,
      profile,
      capabilities,
      options: bound,
      stream(overrides = {}) {
        const call: GenerateOptions = { ...bound, ...overrides, provider: bound.provider, model: bound.model };
        if (overrides.messages) call.messages = stripForeignReplayState(overrides.messages, adapterId);
        return run(call);
      },
    };
  }

  /** The error boundary: whatever the adapter or SDK throws leaves as an LlmError. */
  private async *run(
    adapter: LlmAdapter,
    profile: ProviderProfile,
    capabilities: ModelCapabilities,
    options: GenerateOptions,
  ): AsyncIterable<StreamChunk> {
    const signal = options.signal;
    if (signal?.aborted) throw abortedError(signal.reason);
    try {
      for await (const chunk of adapter.stream(options, profile, capabilities)) {
        // Chunks already buffered when the caller aborted are not delivered: abort is prompt.
        if (signal?.aborted) throw abortedError(signal.reason);
        yield chunk;
      }
    } catch (error) {
      throw normalizeError(error, signal);
    }
  }

  private requireProfile(options: GenerateOptions): ProviderProfile {
    if (!options || typeof options.provider !== "string" || typeof options.model !== "string" || !options.model) {
      throw new LlmError("bad-request", "GenerateOptions need a provider profile id and a model");
    }
    const profile = this.profiles.get(options.provider);
    if (!profile) throw new LlmError("bad-request", `unknown provider profile "${options.provider}"`);
    return profile;
  }

  private cachedServerWindow(profileId: string, model: string): number | undefined {
    return this.serverWindows.get(`${profileId}\0${model}`)?.settled;
  }

  private serverWindow(profile: ProviderProfile, model: string): Promise<number | undefined> {
    const key = `${profile.id}\0${model}`;
    const cached = this.serverWindows.get(key);
    if (cached && (cached.settled !== undefined || Date.now() - cached.at < UNKNOWN_RETRY_MS)) return cached.value;
    const entry: ServerWindow = { value: Promise.resolve(undefined), at: Date.now() };
    entry.value = queryServerContextWindow(profile, model, this.fetchImpl).then((value) => {
      if (value !== undefined) entry.settled = value;
      return value;
    });
    this.serverWindows.set(key, entry);
    return entry.value;
  }
}
