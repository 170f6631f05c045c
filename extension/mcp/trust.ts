import * as vscode from "vscode";
import type { McpConsentRequest } from "../../core/runtime/mcp";

const CONSENT_KEY = "downcity.mcp.consent";
const ALWAYS_KEY = "downcity.mcp.alwaysAllow";

/**
 * What the user allowed, per folder, in workspaceState: which untrusted servers may start
 * (by fingerprint: a changed command line asks again), and which servers or tools run
 * without asking ("server" or "server/tool").
 */
export class McpTrust {
  constructor(private readonly state: vscode.Memento) {}

  consented(root: string, fingerprint: string): boolean {
    return this.state.get<string[]>(CONSENT_KEY, []).includes(`${root}\u0000${fingerprint}`);
  }

  async rememberConsent(root: string, fingerprint: string): Promise<void> {
    const list = this.state.get<string[]>(CONSENT_KEY, []);
    if (!list.includes(`${root}\u0000${fingerprint}`))
      await this.state.update(CONSENT_KEY, [...list, `${root}\u0000${fingerprint}`]);
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

  alwaysAllowed(root: string, server: string, tool: string): boolean {
    const list = this.state.get<string[]>(ALWAYS_KEY, []);
    return list.includes(`${root}\u0000${server}`) || list.includes(`${root}\u0000${server}/${tool}`);
  }

  isAlways(root: string, key: string): boolean {
    return this.state.get<string[]>(ALWAYS_KEY, []).includes(`${root}\u0000${key}`);
  }

  /** Turns "always allow" on for a server ("name") or one tool ("name/tool"): the approval card's button. */
  async allowAlways(root: string, key: string): Promise<void> {
    const list = this.state.get<string[]>(ALWAYS_KEY, []);
    const id = `${root}\u0000${key}`;
    if (!list.includes(id)) await this.state.update(ALWAYS_KEY, [...list, id]);
  }

  /** The tools of `server` allowed always in this folder (listed even while the server is stopped). */
  alwaysTools(root: string, server: string): string[] {
    const prefix = `${root}\u0000${server}/`;
    return this.state
      .get<string[]>(ALWAYS_KEY, [])
      .filter((id) => id.startsWith(prefix))
      .map((id) => id.slice(prefix.length));
  }

  /** Toggles "always allow" for a server ("name") or one tool ("name/tool"). */
  async toggleAlways(root: string, key: string): Promise<boolean> {
    const list = this.state.get<string[]>(ALWAYS_KEY, []);
    const id = `${root}\u0000${key}`;
    const on = !list.includes(id);
    await this.state.update(ALWAYS_KEY, on ? [...list, id] : list.filter((x) => x !== id));
    return on;
  }
}
