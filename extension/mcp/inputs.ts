import * as vscode from "vscode";
import type { McpInput, McpSource } from "../../core/runtime/mcp";

/**
 * `${input:id}` values: asked once, kept in SecretStorage, never logged or shown. Keyed by
 * source, folder and server too, so a cloned mcp.json cannot borrow a secret typed for
 * another server by naming the same input id.
 */
export class McpInputs {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  private key(root: string, source: McpSource, server: string, id: string): string {
    return `downcity.mcp.input/${source.kind === "user" ? "user" : root}/${server}/${id}`;
  }

  async value(root: string, source: McpSource, server: string, input: McpInput): Promise<string | undefined> {
    const key = this.key(root, source, server, input.id);
    const stored = await this.secrets.get(key);
    if (stored !== undefined) return stored;
    const title = `MCP server "${server}": ${input.description ?? input.id}`;
    const value =
      input.type === "pickString" && input.options?.length
        ? await vscode.window.showQuickPick(input.options, { title, ignoreFocusOut: true })
        : await vscode.window.showInputBox({
            title,
            prompt: input.description ?? `Value of \${input:${input.id}}`,
            password: input.password ?? false,
            ignoreFocusOut: true,
            ...(input.default ? { value: input.default } : {}),
          });
    if (value === undefined) return undefined;
    await this.secrets.store(key, value);
    return value;
  }

  /** Forgets a server's stored inputs (the picker's "Forget inputs"), so the next start asks again. */
  async forget(root: string, source: McpSource, server: string, ids: readonly string[]): Promise<void> {
    for (const id of ids) await this.secrets.delete(this.key(root, source, server, id));
  }
}
