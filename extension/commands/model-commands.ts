import * as vscode from "vscode";
import { listServerModels } from "../../core/runtime";
import type { ModelChoice } from "../../core/protocol";
import { Answers, keyProblem, parseArgs } from "./arguments";
import type { ProviderChoice, ProviderConfig } from "../config/providers";

interface ModelPick extends vscode.QuickPickItem {
  selection?: ModelChoice;
  /** "Add a model…": the chat's connect form. */
  connect?: true;
}

/**
 * `downcity.setApiKey` and `downcity.selectModel`. Keys go to SecretStorage only and are
 * never shown or logged. Answers given as arguments (`{ profileId, key }`, `{ profileId,
 * model }`) skip their prompts; a profile named there must exist.
 */
export function modelCommands(config: ProviderConfig, showConnect?: () => Promise<void>) {
  const openSettings = () => vscode.commands.executeCommand("workbench.action.openSettings", "downcity.providers");
  const ids = (choices: ProviderChoice[]) => choices.map((c) => c.id).join(", ") || "none";
  /** The profile the caller named (or the only one), undefined to ask; an unknown name is an error. */
  const named = (
    choices: ProviderChoice[],
    profileId: string | undefined,
    needed: boolean,
  ): ProviderChoice | undefined => {
    if (profileId !== undefined) {
      const found = choices.find((c) => c.id === profileId);
      if (!found) throw new Error(`no provider profile "${profileId}" (profiles: ${ids(choices)})`);
      return found;
    }
    if (needed && choices.length !== 1)
      throw new Error(`name the profileId: the provider profiles are ${ids(choices)}`);
    return needed ? choices[0] : undefined;
  };

  return {
    async setApiKey(arg?: unknown) {
      // A bare string is the profile id (the older form); a profile it does not name is asked for.
      const legacy = typeof arg === "string";
      const answers = legacy ? {} : parseArgs(Answers.setApiKey, arg);
      const profileId = legacy ? arg : answers.profileId;
      // The environment's profile takes a key too: one set here wins over DOWNCITY_API_KEY.
      const choices = await config.choices();
      if (choices.length === 0 && (answers.profileId !== undefined || answers.key !== undefined))
        throw new Error(`no provider profile to store the key for (profiles: none)`);
      if (choices.length === 0) {
        const answer = await vscode.window.showInformationMessage(
          "Downcity: add a provider profile to the downcity.providers setting first (or set DOWNCITY_PROTOCOL and DOWNCITY_MODEL for the extension host); its key is then stored here.",
          "Open Settings",
        );
        if (answer) await openSettings();
        return;
      }
      let id = legacy
        ? choices.some((c) => c.id === profileId)
          ? profileId
          : undefined
        : named(choices, profileId, false)?.id;
      if (!id) {
        const chosen =
          choices.length === 1
            ? choices[0]
            : await vscode.window.showQuickPick(
                choices.map((c) => ({
                  label: c.id,
                  description: `${c.protocol}${c.baseURL ? ` · ${c.baseURL}` : ""}`,
                  detail: c.hasKey ? "A key is stored" : "No key stored",
                  id: c.id,
                })),
                { placeHolder: "Provider profile to set the API key of" },
              );
        if (!chosen) return;
        id = chosen.id;
      }
      const key =
        answers.key ??
        (await vscode.window.showInputBox({
          prompt: `API key for "${id}" (kept in VS Code's secret storage, never in settings or session files)`,
          password: true,
          ignoreFocusOut: true,
          validateInput: keyProblem,
        }));
      if (key === undefined) return;
      await config.setApiKey(id, key.trim());
      void vscode.window.showInformationMessage(`Downcity: the API key for "${id}" is stored.`);
    },

    async selectModel(arg?: unknown): Promise<ModelChoice | undefined> {
      const answers = parseArgs(Answers.selectModel, arg);
      const choices = await config.choices();
      if (answers.profileId !== undefined || answers.model !== undefined) {
        const choice = named(choices, answers.profileId, true)!;
        const selection = selectionFor(choice, answers.model ?? choice.model);
        await config.select(selection);
        return selection;
      }
      // With no provider, the chat's connect form is the way in (the status bar item lands here too).
      if (choices.length === 0 && showConnect) {
        await showConnect();
        return undefined;
      }
      if (choices.length === 0) {
        const answer = await vscode.window.showWarningMessage(
          "Downcity: no model provider is configured. Add a profile to downcity.providers, or set DOWNCITY_PROTOCOL, DOWNCITY_MODEL (and DOWNCITY_BASE_URL, DOWNCITY_API_KEY) for the extension host.",
          "Open Settings",
        );
        if (answer) await openSettings();
        return undefined;
      }
      const current = config.selection();
      const profiles = await config.profiles();
      // Servers are asked concurrently; the picker shows busy until all answered or timed out.
      const items = (async (): Promise<ModelPick[]> => {
        const listed = await Promise.all(profiles.map((p) => listServerModels(p).catch(() => [] as string[])));
        const picks: ModelPick[] = [];
        choices.forEach((choice, i) => {
          picks.push({ label: choice.id, kind: vscode.QuickPickItemKind.Separator });
          const models = [choice.model, ...(listed[i] ?? []).filter((m) => m !== choice.model)];
          for (const model of models) {
            const selection = selectionFor(choice, model);
            const isCurrent = current?.provider === choice.id && current.model === model;
            picks.push({
              label: `${isCurrent ? "$(check) " : ""}${model}`,
              description: [
                model === choice.model ? "configured" : "listed by the server",
                choice.source === "environment" ? "environment" : "",
              ]
                .filter(Boolean)
                .join(" · "),
              selection,
            });
          }
        });
        if (showConnect)
          picks.push(
            { label: "", kind: vscode.QuickPickItemKind.Separator },
            { label: "$(add) Add a model…", description: "connect a provider in the chat", connect: true },
          );
        return picks;
      })();
      const chosen = await vscode.window.showQuickPick(items, {
        placeHolder: "Model for new runs",
        matchOnDescription: true,
      });
      if (chosen?.connect) await showConnect?.();
      if (chosen?.selection) await config.select(chosen.selection);
      return chosen?.selection;
    },
  };
}

/** A model of a profile; the configured one carries the profile's context window. */
function selectionFor(choice: ProviderChoice, model: string): ModelChoice {
  const selection: ModelChoice = { provider: choice.id, model };
  if (model === choice.model && choice.contextWindow) selection.contextWindow = choice.contextWindow;
  return selection;
}
