import * as vscode from "vscode";
import { DEFAULT_RULES_BUDGET } from "../../core/runtime/before-first-draw";

/**
 * `downcity.rules.files` and `downcity.rules.maxTokens` of one folder, read at every
 * request (core/rules), so a settings change reaches the next one. A wrong value falls
 * back to the default rather than failing the run: AGENTS.md is read whatever this says.
 */
export function rulesSettings(folder: vscode.WorkspaceFolder): {
  files: () => readonly string[];
  budgetTokens: () => number;
} {
  const config = () => vscode.workspace.getConfiguration("downcity.rules", folder.uri);
  return {
    files: () => {
      const value = config().get<unknown>("files");
      return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
    },
    budgetTokens: () => {
      const value = config().get<unknown>("maxTokens");
      return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : DEFAULT_RULES_BUDGET;
    },
  };
}
