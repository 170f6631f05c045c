import { ProviderConfigError, resolveEnvProvider, type ResolvedProvider } from "../core/runtime/env-provider";
import { CliError } from "./output";

export type { ResolvedProvider } from "../core/runtime/env-provider";

export interface ProviderFlags {
  protocol?: string;
  "base-url"?: string;
  model?: string;
  "context-window"?: string;
}

/**
 * The provider profile from flags, else env, read by the core's resolver (the VS Code host
 * uses the same). Secrets come from env only and are never printed.
 */
export function resolveProvider(flags: ProviderFlags, env: NodeJS.ProcessEnv = process.env): ResolvedProvider {
  try {
    return resolveEnvProvider(
      env,
      {
        ...(flags.protocol !== undefined && { protocol: flags.protocol }),
        ...(flags["base-url"] !== undefined && { baseURL: flags["base-url"] }),
        ...(flags.model !== undefined && { model: flags.model }),
        ...(flags["context-window"] !== undefined && { contextWindow: flags["context-window"] }),
      },
      "cli",
    );
  } catch (error) {
    if (error instanceof ProviderConfigError) throw new CliError(error.message);
    throw error;
  }
}
