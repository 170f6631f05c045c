// The provider given by `DOWNCITY_*` (and the CLI's flags): its own module so the CLI's small bundles re-export it
// without the runtime (see esbuild.config.mjs).
export { resolveEnvProvider, ProviderConfigError, ENV_PROVIDER_HELP, type ResolvedProvider } from "../llm/env-profile";
