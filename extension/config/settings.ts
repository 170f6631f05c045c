import * as vscode from "vscode";
import { z } from "zod";
import { CompactionConfig, type CompactionSettings } from "../../core/compaction/config";
import { ProviderProfileSchema } from "../../core/llm/profile";
import type { ProviderProfile } from "../../core/llm/types";
import type { AgentProfile, ApprovalSettings } from "../../core/runtime/types";

/** One entry of `downcity.providers`: a core provider profile plus the model it serves by default. No key: keys live in SecretStorage. */
export interface ProviderSetting {
  profile: ProviderProfile;
  model: string;
  contextWindow?: number;
}

const ProviderEntry = ProviderProfileSchema.pick({ id: true, protocol: true, baseURL: true, headers: true, server: true }).extend({
  model: z.string().min(1),
  contextWindow: z.number().int().positive().optional(),
});

const AgentEntry = z.object({
  id: z.string().regex(/^[a-z0-9_-]+$/, "lower-case letters, digits, - and _"),
  name: z.string().min(1),
  instructions: z.string().optional(),
  tools: z.array(z.string().min(1)).optional(),
});

export interface Settings {
  providers: ProviderSetting[];
  defaultProvider: string | undefined;
  approval: ApprovalSettings;
  compaction: CompactionSettings;
  agents: AgentProfile[];
  /** What was wrong in settings (each names its key); shown once per change. */
  problems: string[];
}

const APPROVAL = z.enum(["ask", "auto"]);

/** Reads `downcity.*`, keeping every valid entry and naming every invalid one. */
export function readSettings(config: vscode.WorkspaceConfiguration = vscode.workspace.getConfiguration("downcity")): Settings {
  const problems: string[] = [];
  const providers: ProviderSetting[] = [];
  const rawProviders = config.get<unknown[]>("providers") ?? [];
  (Array.isArray(rawProviders) ? rawProviders : []).forEach((raw, i) => {
    const parsed = ProviderEntry.safeParse(raw);
    if (!parsed.success) {
      problems.push(`downcity.providers[${i}]: ${z.prettifyError(parsed.error).replace(/\n/g, " ")}`);
      return;
    }
    const { model, contextWindow, ...fields } = parsed.data;
    if (providers.some((p) => p.profile.id === fields.id)) {
      problems.push(`downcity.providers[${i}]: the id "${fields.id}" is used twice`);
      return;
    }
    const profile: ProviderProfile = { ...fields } as ProviderProfile;
    if (contextWindow) profile.models = { [model]: { contextWindow } };
    providers.push(contextWindow ? { profile, model, contextWindow } : { profile, model });
  });

  const approvalKind = (key: string): "ask" | "auto" => {
    const value = config.get<unknown>(`approval.${key}`);
    if (value === undefined) return key === "reads" ? "auto" : "ask";
    const parsed = APPROVAL.safeParse(value);
    if (parsed.success) return parsed.data;
    problems.push(`downcity.approval.${key}: must be "ask" or "auto"; "ask" is used`);
    return "ask";
  };
  const allowed = z.array(z.string().min(1)).safeParse(config.get<unknown>("approval.allowedCommands") ?? []);
  if (!allowed.success) problems.push("downcity.approval.allowedCommands: must be a list of commands");
  const approval: ApprovalSettings = {
    reads: approvalKind("reads"),
    edits: approvalKind("edits"),
    commands: approvalKind("commands"),
    allowedCommands: allowed.success ? allowed.data : [],
  };

  const compaction: CompactionSettings = {};
  for (const key of ["triggerRatio", "verifyRatio", "retainRatio", "toolResultMaxCodePoints", "reasoningMaxCodePoints", "summaryChunkChars"] as const) {
    const value = config.get<unknown>(`compaction.${key}`);
    if (value === undefined || value === null) continue;
    const parsed = CompactionConfig.shape[key].safeParse(value);
    if (parsed.success) (compaction as Record<string, unknown>)[key] = parsed.data;
    else problems.push(`downcity.compaction.${key}: ${parsed.error.issues[0]?.message ?? "invalid"}; the default is used`);
  }

  const agents: AgentProfile[] = [];
  const rawAgents = config.get<unknown[]>("agents") ?? [];
  (Array.isArray(rawAgents) ? rawAgents : []).forEach((raw, i) => {
    const parsed = AgentEntry.safeParse(raw);
    if (!parsed.success) problems.push(`downcity.agents[${i}]: ${z.prettifyError(parsed.error).replace(/\n/g, " ")}`);
    else agents.push(parsed.data as AgentProfile);
  });

  const defaultProvider = config.get<string>("defaultProvider") || undefined;
  if (defaultProvider && !providers.some((p) => p.profile.id === defaultProvider)) problems.push(`downcity.defaultProvider: no provider profile "${defaultProvider}" in downcity.providers`);
  return { providers, defaultProvider, approval, compaction, agents, problems };
}
