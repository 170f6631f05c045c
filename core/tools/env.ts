/**
 * Environment-variable names that may carry secrets. Commands the model runs never see
 * them: a leaked key would end up in the transcript and at the provider.
 */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|PRIVATE|COOKIE/i;
const SECRET_PREFIX = /^(DOWNCITY_|OPENAI_|ANTHROPIC_)/i;

export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name) || SECRET_PREFIX.test(name);
}

/**
 * A copy of `env` without secret-looking variables, plus settings that keep
 * non-interactive commands from waiting on a prompt or a pager.
 */
export function scrubEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !isSecretEnvName(name)) out[name] = value;
  }
  out.GIT_TERMINAL_PROMPT = "0";
  out.PAGER = "cat";
  out.GIT_PAGER = "cat";
  return out;
}
