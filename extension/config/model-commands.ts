import * as vscode from "vscode";
import { listServerModels } from "../../core/llm/list-models";
import type { ModelSelection } from "../../core/runtime/types";
import type { ProviderConfig } from "./providers";

interface ModelPick extends vscode.QuickPickItem {
  selection?: ModelSelection;
}

/** `downcity.setApiKey` and `downcity.selectModel`. Keys go to SecretStorage only and are never shown or logged. */
export function modelCommands(config: ProviderConfig) {
  const openSettings = () => vscode.commands.executeCommand("workbench.action.openSettings", "downcity.providers");

  return {
    async setApiKey(profileId?: string) {
      // The environment's profile takes a key too: one set here wins over DOWNCITY_API_KEY.
      const choices = await config.choices();
      if (choices.length === 0) {
        const answer = await vscode.window.showInformationMessage("Downcity: add a provider profile to the downcity.providers setting first (or set DOWNCITY_PROTOCOL and DOWNCITY_MODEL for the extension host); its key is then stored here.", "Open Settings");
        if (answer) await openSettings();
        return;
      }
      let id = typeof profileId === "string" ? profileId : undefined;
      if (!id || !choices.some((c) => c.id === id)) {
        const chosen =
          choices.length === 1
            ? choices[0]
            : await vscode.window.showQuickPick(
                choices.map((c) => ({ label: c.id, description: `${c.protocol}${c.baseURL ? ` · ${c.baseURL}` : ""}`, detail: c.hasKey ? "A key is stored" : "No key stored", id: c.id })),
                { placeHolder: "Provider profile to set the API key of" },
              );
        if (!chosen) return;
        id = chosen.id;
      }
      const key = await vscode.window.showInputBox({
        prompt: `API key for "${id}" (kept in VS Code's secret storage, never in settings or session files)`,
        password: true,
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim().length === 0 ? "The key cannot be empty" : undefined),
      });
      if (key === undefined) return;
      await config.setApiKey(id, key.trim());
      void vscode.window.showInformationMessage(`Downcity: the API key for "${id}" is stored.`);
    },

    async selectModel() {
      const choices = await config.choices();
      if (choices.length === 0) {
        const answer = await vscode.window.showWarningMessage(
          "Downcity: no model provider is configured. Add a profile to downcity.providers, or set DOWNCITY_PROTOCOL, DOWNCITY_MODEL (and DOWNCITY_BASE_URL, DOWNCITY_API_KEY) for the extension host.",
          "Open Settings",
        );
        if (answer) await openSettings();
        return;
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
            const selection: ModelSelection = { provider: choice.id, model };
            if (model === choice.model && choice.contextWindow) selection.contextWindow = choice.contextWindow;
            const isCurrent = current?.provider === choice.id && current.model === model;
            picks.push({
              label: `${isCurrent ? "$(check) " : ""}${model}`,
              description: [model === choice.model ? "configured" : "listed by the server", choice.source === "environment" ? "environment" : ""].filter(Boolean).join(" · "),
              selection,
            });
          }
        });
        return picks;
      })();
      const chosen = await vscode.window.showQuickPick(items, { placeHolder: "Model for new runs", matchOnDescription: true });
      if (chosen?.selection) await config.select(chosen.selection);
    },
  };
}
