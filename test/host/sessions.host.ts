// The extension's host side in the real extension host: one runtime per folder, the
// Sessions tree fed from sessions the core stored before VS Code started, commands
// acting on disk, keys in the real SecretStorage. Skipped until the extension exists.
import * as assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { suite, suiteSetup, test } from "mocha";
import * as vscode from "vscode";
import type { DowncityHost } from "../../extension/activate";
import type { SessionNode, SessionTreeNode } from "../../extension/sessions/nodes";
import { whenEvent } from "./events";
import { hostWorkspace } from "./workspace";

const EXTENSION_ID = "downcity.downcity-vscode";

suite("Downcity sessions", function () {
  let host: DowncityHost;
  const { folders, seeded } = hostWorkspace();
  const alpha = folders[0]!;

  suiteSetup(async function () {
    const extension = vscode.extensions.getExtension<DowncityHost>(EXTENSION_ID);
    if (!extension?.packageJSON.main) this.skip();
    host = await extension!.activate();
    await host.tree.ready;
  });

  test("one runtime per workspace folder, each with its own store", () => {
    assert.deepEqual(
      host.runtimes
        .all()
        .map((e) => e.runtime.root)
        .sort(),
      [...folders].sort(),
    );
  });

  test("the tree shows both folders and the seeded sessions, newest first", async () => {
    const roots = await host.tree.getChildren();
    assert.deepEqual(roots.map((n) => label(host.tree.getTreeItem(n))).sort(), ["alpha", "beta"]);
    const alphaNode = roots.find((n) => n.kind === "folder" && n.entry.runtime.root === alpha)!;
    const sessions = await sessionsUnder(host, alphaNode);
    assert.deepEqual(
      sessions.map((n) => label(host.tree.getTreeItem(n))),
      ["Seeded newer session", "Seeded older session"],
    );
  });

  test("Archive Session and Unarchive Session move the session on disk and in the tree", async () => {
    const { sessionId } = seeded.find((s) => s.sessionId === "seed-older")!;
    const arg = { folder: vscode.Uri.file(alpha), agentId: "default", sessionId };
    const agentDir = join(alpha, ".downcity", "agents", "default");
    await vscode.commands.executeCommand("downcity.archiveSession", arg);
    await until(
      host,
      () => host.tree.sessions({ archived: true }).some((n) => n.item.sessionId === sessionId),
      "the tree to show it archived",
    );
    assert.ok(existsSync(join(agentDir, "archived", sessionId)), "not moved to archived/ on disk");
    assert.ok(!existsSync(join(agentDir, "sessions", sessionId)));
    await vscode.commands.executeCommand("downcity.unarchiveSession", arg);
    await until(
      host,
      () => host.tree.sessions({ archived: false }).some((n) => n.item.sessionId === sessionId),
      "the tree to show it back",
    );
    assert.ok(existsSync(join(agentDir, "sessions", sessionId)), "not moved back on disk");
  });

  test("an API key goes to SecretStorage only, and the profile then has it", async () => {
    const before = (await host.config.choices()).find((c) => c.id === "local");
    assert.equal(before?.hasKey, false);
    const changed = new Promise<void>((ok) => {
      const sub = host.config.onDidChange(() => {
        sub.dispose();
        ok();
      });
    });
    await host.config.setApiKey("local", "sk-host-test-secret");
    await changed;
    assert.equal((await host.config.choices()).find((c) => c.id === "local")?.hasKey, true);
    assert.equal((await host.config.profiles()).find((p) => p.id === "local")?.apiKey, "sk-host-test-secret");
    const workspaceFile = vscode.workspace.workspaceFile!.fsPath;
    assert.ok(
      !readFileSync(workspaceFile, "utf8").includes("sk-host-test-secret"),
      "the key leaked into the workspace settings",
    );
  });
});

function label(item: vscode.TreeItem): string {
  return typeof item.label === "string" ? item.label : (item.label?.label ?? "");
}

async function sessionsUnder(host: DowncityHost, node: SessionTreeNode): Promise<SessionNode[]> {
  const out: SessionNode[] = [];
  for (const child of await host.tree.getChildren(node)) {
    if (child.kind === "session") out.push(child);
    else if (child.kind === "agent" || child.kind === "date") out.push(...(await sessionsUnder(host, child)));
  }
  return out;
}

/** Resolves once `check` holds, re-checked on every tree change; bounded. */
function until(host: DowncityHost, check: () => boolean, what: string, ms = 10_000): Promise<void> {
  return whenEvent(what, host.tree.onDidChangeTreeData, () => (check() ? true : undefined), ms).then(() => undefined);
}
