import { join } from "node:path";
import * as vscode from "vscode";
import type { McpConsentRequest } from "../../core/runtime/mcp";
import { emptyTrust, launchDigest, McpTrustDoc, McpTrustFile, type McpTrustStore } from "../../core/runtime/mcp";

/** The file in the workspace's extension storage (outside every folder of the workspace). */
export const TRUST_FILE = "mcp-trust.json";
const MEMENTO_KEY = "downcity.mcp.trust";

/** With no folder open there is no per-workspace storage: the same document in workspaceState. */
class MementoTrust implements McpTrustStore {
  private writes: Promise<void> = Promise.resolve();
  constructor(private readonly state: vscode.Memento) {}
  read(): McpTrustDoc {
    const parsed = McpTrustDoc.safeParse(this.state.get(MEMENTO_KEY));
    return parsed.success ? parsed.data : emptyTrust();
  }
  update(change: (doc: McpTrustDoc) => McpTrustDoc): Promise<void> {
    const write = this.writes.then(() => this.state.update(MEMENTO_KEY, McpTrustDoc.parse(change(this.read()))));
    this.writes = write.catch(() => undefined);
    return write;
  }
}

/**
 * What the user allowed, per folder: which untrusted servers may start (by launch: a changed
 * command line asks again), and which servers or tools run without asking. Kept in
 * `mcp-trust.json` in the workspace's storageUri, else (no folder open) in workspaceState.
 */
export class McpTrust {
  constructor(readonly store: McpTrustStore) {}

  static of(
    context: Pick<vscode.ExtensionContext, "workspaceState" | "storageUri">,
    log: (message: string) => void,
  ): McpTrust {
    const dir = context.storageUri?.scheme === "file" ? context.storageUri.fsPath : undefined;
    return new McpTrust(dir ? new McpTrustFile(join(dir, TRUST_FILE), log) : new MementoTrust(context.workspaceState));
  }

  consented(root: string, fingerprint: string): boolean {
    const launch = launchDigest(fingerprint);
    return this.store.read().consent.some((c) => c.folder === root && c.launch === launch);
  }

  async rememberConsent(root: string, fingerprint: string): Promise<void> {
    const launch = launchDigest(fingerprint);
    await this.store.update((doc) =>
      doc.consent.some((c) => c.folder === root && c.launch === launch)
        ? doc
        : { ...doc, consent: [...doc.consent, { folder: root, launch }] },
    );
  }

  /** The modal the first start of a folder's server shows: its command line or URL, exactly as configured. */
  async ask(root: string, request: McpConsentRequest): Promise<boolean> {
    if (this.consented(root, request.fingerprint)) return true;
    const kind = /^https?:\/\//.test(request.launch) ? "connects to" : "runs";
    const choice = await vscode.window.showWarningMessage(
      `Start the MCP server "${request.server}" from ${request.source.label}?`,
      {
        modal: true,
        detail: `It ${kind}:\n${request.launch}\n\nThis configuration came with the folder. An MCP server can run any program as you: allow only servers you trust.`,
      },
      "Allow",
    );
    if (choice !== "Allow") return false;
    await this.rememberConsent(root, request.fingerprint);
    return true;
  }

  /** Whether a call of `tool` runs unasked: allowed always for the tool or for its whole server. */
  alwaysAllowed(root: string, server: string, tool: string): boolean {
    return this.isAlways(root, server) || this.isAlways(root, server, tool);
  }

  /** Whether "always allow" is on for exactly this server (no `tool`) or this one tool. */
  isAlways(root: string, server: string, tool?: string): boolean {
    return this.store.read().always.some((a) => a.folder === root && a.server === server && a.tool === tool);
  }

  /** Turns "always allow" on for a server (no `tool`) or one tool: the approval card's button. */
  async allowAlways(root: string, server: string, tool?: string): Promise<void> {
    await this.setAlways(root, server, tool, true);
  }

  /** The tools of `server` allowed always in this folder (listed even while the server is stopped). */
  alwaysTools(root: string, server: string): string[] {
    return this.store
      .read()
      .always.filter((a) => a.folder === root && a.server === server && a.tool !== undefined)
      .map((a) => a.tool!);
  }

  /** Toggles "always allow" for a server (no `tool`) or one tool (the MCP Servers picker). */
  async toggleAlways(root: string, server: string, tool?: string): Promise<boolean> {
    const on = !this.isAlways(root, server, tool);
    await this.setAlways(root, server, tool, on);
    return on;
  }

  private async setAlways(root: string, server: string, tool: string | undefined, on: boolean): Promise<void> {
    const same = (a: McpTrustDoc["always"][number]) => a.folder === root && a.server === server && a.tool === tool;
    await this.store.update((doc) => {
      const rest = doc.always.filter((a) => !same(a));
      return { ...doc, always: on ? [...rest, { folder: root, server, ...(tool ? { tool } : {}) }] : rest };
    });
  }
}
