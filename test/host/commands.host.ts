// Every command of issue 11 executed in code-server's real extension host through
// vscode.commands.executeCommand, with its answers as arguments (no prompt is shown), and
// its effect checked where it lands: the tree, the files on disk, SecretStorage, the
// selected model, the session the chat shows, the Explorer. The model is a loopback
// provider server in this process. Sessions of the second folder only: the first's tree
// stays as seeded for sessions.host.ts.
import * as assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { suite, suiteSetup, suiteTeardown, test } from "mocha";
import * as vscode from "vscode";
import type { AgentEvent } from "../../core/protocol";
import type { DowncityHost } from "../../extension/activate";
import type { CommandSessionRef } from "../../extension/commands/session-commands";
import type { OpenFolder } from "../../extension/folders/registry";
import { startProviderServer, wire, type ProviderServer } from "../support/provider-server";
import { withTimeout } from "../support/with-timeout";
import { whenEvent } from "./events";
import { hostWorkspace } from "./workspace";

const EXTENSION_ID = "downcity.downcity-vscode";
const PROFILE = "hostcmds";
const MODEL = "hostcmds-model";
const LISTED_MODEL = "hostcmds-listed";
const KEY = "sk-hostcmds-never-logged";

suite("Downcity commands (answers as arguments)", function () {
  this.timeout(60_000);
  let host: DowncityHost;
  let provider: ProviderServer;
  let entry: OpenFolder;
  let providersBefore: unknown;
  const { folders } = hostWorkspace();
  const beta = folders[1]!;
  const betaUri = vscode.Uri.file(beta);
  const ref = (sessionId: string, agentId = "code") => ({ folder: betaUri, agentId, sessionId });
  const dirOf = (sessionId: string, area = "sessions", agentId = "code") =>
    join(beta, ".downcity", "agents", agentId, area, sessionId);
  const node = (sessionId: string, agentId = "code") => host.tree.find(entry, agentId, sessionId);
  const treeShows = (what: string, check: () => boolean) =>
    whenEvent(what, host.tree.onDidChangeTreeData, () => (check() ? true : undefined), 10_000);
  const chatShows = (r: { agentId: string; sessionId: string }) =>
    whenEvent(`the chat to show ${r.sessionId}`, host.chat.onDidShow, () => {
      const shown = host.chat.shown();
      return shown &&
        shown.folderKey === betaUri.toString() &&
        shown.agentId === r.agentId &&
        shown.sessionId === r.sessionId
        ? shown
        : undefined;
    });
  /** The folder runtime's next agent event that matches (bounded). */
  const agentEvent = (what: string, match: (e: AgentEvent) => boolean) => {
    let off: (() => void) | undefined;
    const seen = new Promise<AgentEvent>(
      (resolve) => (off = entry.runtime.onEvent((e) => void (match(e) && resolve(e)))),
    );
    return withTimeout(seen, 10_000, what).finally(() => off?.());
  };

  suiteSetup(async function () {
    const extension = vscode.extensions.getExtension<DowncityHost>(EXTENSION_ID);
    if (!extension?.packageJSON.main) this.skip();
    host = await extension!.activate();
    await host.tree.ready;
    entry = host.runtimes.all().find((e) => e.runtime.root === beta)!;
    assert.ok(entry, "no runtime for the second folder");
    // A prompt of exactly "hold the line" streams a first part, then stalls until the client
    // leaves (Cancel Run). Only the prompt itself: the summariser's request for that session
    // carries the words too, and holding it would leave Compact Now waiting for ever.
    provider = await startProviderServer(({ path, body }) => {
      if (path.endsWith("/models")) return { json: { object: "list", data: [{ id: MODEL }, { id: LISTED_MODEL }] } };
      if (lastUserText(body) === "hold the line")
        return { sse: wire.openaiChat({ text: "Holding the line while you wait." }), stallAfter: 2 };
      return { sse: wire.openaiChat({ text: "A summary of what came before." }) };
    });
    const settings = vscode.workspace.getConfiguration("downcity");
    providersBefore = settings.inspect("providers")?.workspaceValue;
    const profile = {
      id: PROFILE,
      protocol: "openai-chat",
      baseURL: provider.baseURL,
      model: MODEL,
      contextWindow: 100,
    };
    await settings.update(
      "providers",
      [...((providersBefore as unknown[]) ?? []), profile],
      vscode.ConfigurationTarget.Workspace,
    );
    await whenEvent("the profile to be configured", host.config.onDidChange, () =>
      host.config.current.providers.some((p) => p.profile.id === PROFILE) ? true : undefined,
    );
  });

  suiteTeardown(async () => {
    await vscode.workspace
      .getConfiguration("downcity")
      .update("providers", providersBefore, vscode.ConfigurationTarget.Workspace);
    await provider?.close();
  });

  test("Select Model takes { profileId, model }: the selection and the status bar follow", async () => {
    const selected = await vscode.commands.executeCommand("downcity.selectModel", { profileId: PROFILE });
    assert.deepEqual(selected, { provider: PROFILE, model: MODEL, contextWindow: 100 });
    assert.deepEqual(host.config.selection(), { provider: PROFILE, model: MODEL, contextWindow: 100 });
    assert.match(host.status.text, new RegExp(MODEL));
  });

  test("Set API Key takes { profileId, key }: the key is in SecretStorage only, and the next request carries it", async () => {
    await vscode.commands.executeCommand("downcity.setApiKey", { profileId: PROFILE, key: KEY });
    assert.equal((await host.config.profiles()).find((p) => p.id === PROFILE)?.apiKey, KEY);
    assert.equal((await host.config.choices()).find((c) => c.id === PROFILE)?.hasKey, true);
    assert.ok(
      !readFileSync(vscode.workspace.workspaceFile!.fsPath, "utf8").includes(KEY),
      "the key is in the workspace settings",
    );
  });

  test("New Session takes { folder, agentId }: it is in the tree and the chat shows it", async () => {
    const made = await vscode.commands.executeCommand<CommandSessionRef>("downcity.newSession", {
      folder: betaUri,
      agentId: "ask",
    });
    assert.ok(made, "New Session returned no session");
    assert.equal(made.folder, betaUri.toString());
    assert.equal(made.agentId, "ask");
    assert.ok(node(made.sessionId, "ask"), "the new session is not in the tree");
    await chatShows(made);
  });

  test("Open Session shows the session in the chat", async () => {
    await vscode.commands.executeCommand("downcity.openSession", ref("cmd-compact"));
    await chatShows(ref("cmd-compact"));
  });

  test("Rename Session takes { title } beside the ref (one object, as a keybinding gives): pinned on disk and in the tree", async () => {
    await vscode.commands.executeCommand("downcity.renameSession", {
      ...ref("cmd-two-turns"),
      title: "  Renamed in the host ",
    });
    await treeShows(
      "the tree to show the new title",
      () => node("cmd-two-turns")?.item.title === "Renamed in the host",
    );
    assert.match(
      readFileSync(join(dirOf("cmd-two-turns"), "messages", "active.jsonl"), "utf8"),
      /"type":"session\/title".*"Renamed in the host".*"kind":"user"/,
    );
  });

  test("Fork Session { whole: true } copies every message into a new session the chat shows", async () => {
    const fork = await vscode.commands.executeCommand<CommandSessionRef>("downcity.forkSession", ref("cmd-two-turns"), {
      whole: true,
    });
    assert.ok(fork, "Fork Session returned no session");
    assert.notEqual(fork.sessionId, "cmd-two-turns");
    await chatShows(fork);
    assert.equal(node(fork.sessionId)?.item.messageCount, 4);
    assert.ok(existsSync(join(dirOf(fork.sessionId), "meta.json")), "the fork is not on disk");
  });

  test("Fork Session { atSeq } forks before a user message: the fork holds only the first turn", async () => {
    const source = await entry.runtime.messages({ agentId: "code", sessionId: "cmd-two-turns" });
    const second = source.events.filter((e) => e.type === "user/message")[1]!;
    const fork = await vscode.commands.executeCommand<CommandSessionRef>("downcity.forkSession", ref("cmd-two-turns"), {
      atSeq: second.seq - 1,
    });
    assert.ok(fork, "Fork Session returned no session");
    await chatShows(fork);
    const copied = (await entry.runtime.messages({ agentId: "code", sessionId: fork.sessionId })).events;
    const text = (type: string) =>
      copied.filter((e) => e.type === type).map((e) => JSON.stringify((e.data as { content: unknown }).content));
    assert.deepEqual(text("user/message"), [JSON.stringify([{ type: "text", text: "first question" }])]);
    assert.deepEqual(text("assistant/message"), [JSON.stringify([{ type: "text", text: "first answer" }])]);
    assert.equal(node(fork.sessionId)?.item.messageCount, 2);
  });

  test("Export Session { format: md | jsonl, uri } writes the transcript without a dialog", async () => {
    const md = vscode.Uri.file(join(beta, "exported.md"));
    const jsonl = join(beta, "exported.jsonl");
    assert.equal(
      (
        await vscode.commands.executeCommand<vscode.Uri>("downcity.exportSession", ref("cmd-two-turns"), {
          format: "md",
          uri: md,
        })
      )?.fsPath,
      md.fsPath,
    );
    const text = readFileSync(md.fsPath, "utf8");
    assert.match(text, /^# Renamed in the host/);
    assert.ok(text.indexOf("first question") < text.indexOf("second answer"), text);
    // A path string is a file; the format follows from it.
    await vscode.commands.executeCommand("downcity.exportSession", ref("cmd-two-turns"), { uri: jsonl });
    const events = readFileSync(jsonl, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { seq: number; type: string });
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_e, i) => i + 1),
    );
    assert.deepEqual(events.filter((e) => e.type === "user/message").length, 2);
    assert.equal(events.at(-1)?.type, "session/title");
  });

  test("Cancel Run stops a streaming run: the request is aborted, the run ends cancelled, the tree shows it idle", async () => {
    const target = { agentId: "code", sessionId: "cmd-delete" };
    const streaming = agentEvent("the run to stream", (e) => e.type === "draft" && e.sessionId === target.sessionId);
    const run = entry.runtime.prompt(target, "hold the line");
    await streaming;
    await treeShows("the tree to show it running", () => Boolean(node("cmd-delete")?.activity.running));
    const request = provider.requests.at(-1)!;
    assert.equal(
      request.headers.authorization,
      `Bearer ${KEY}`,
      "the request does not carry the key Set API Key stored",
    );
    await vscode.commands.executeCommand("downcity.cancelRun", ref("cmd-delete"));
    const results = await withTimeout(run, 10_000, "the run to end");
    assert.equal(results.at(-1)?.reason, "cancelled");
    await withTimeout(request.closed, 10_000, "the request to close");
    assert.equal(request.clientAborted, true);
    await treeShows("the tree to show it idle", () => node("cmd-delete")?.activity.running === false);
  });

  test("a run in the first folder after one in the second: each folder's editor tools come up (the second's used to throw: its command was registered twice)", async () => {
    const alpha = host.runtimes.all().find((e) => e.runtime.root === folders[0])!;
    const made = await vscode.commands.executeCommand<CommandSessionRef>("downcity.newSession", {
      folder: folders[0]!,
      agentId: "code",
    });
    assert.ok(made, "New Session returned no session");
    const results = await withTimeout(
      alpha.runtime.prompt(made, "say something"),
      20_000,
      "the run in the first folder",
    );
    assert.deepEqual(
      results.map((r) => [r.reason, r.error]),
      [["completed", undefined]],
    );
    // Leave the first folder as seeded (sessions.host.ts lists it).
    await vscode.commands.executeCommand("downcity.deleteSession", made, { confirmed: true });
    await treeShows("the tree to drop it", () => host.tree.find(alpha, "code", made.sessionId) === undefined);
  });

  test("Show Session Files reveals the session's folder in the Explorer (the Sessions view gives way to it)", async () => {
    await vscode.commands.executeCommand("downcity.sessions.focus");
    await whenEvent("the Sessions view to be visible", host.view.onDidChangeVisibility, () =>
      host.view.visible ? true : undefined,
    );
    const dir = await vscode.commands.executeCommand<vscode.Uri>("downcity.showSessionFiles", ref("cmd-compact"));
    assert.equal(dir?.fsPath, dirOf("cmd-compact"));
    assert.ok(statSync(dir.fsPath).isDirectory());
    await whenEvent("the Explorer to replace the Sessions view", host.view.onDidChangeVisibility, () =>
      host.view.visible ? undefined : true,
    );
  });

  test("Open Session after the Explorer took the sidebar brings the chat back with that session", async () => {
    await vscode.commands.executeCommand("downcity.openSession", ref("cmd-two-turns"));
    await chatShows(ref("cmd-two-turns"));
    await whenEvent("the Downcity views to be visible again", host.view.onDidChangeVisibility, () =>
      host.view.visible ? true : undefined,
    );
  });

  test("Compact Now closes the older history into a segment on disk and says what it closed", async () => {
    const result = await vscode.commands.executeCommand<{ closed: number; throughSeq?: number }>(
      "downcity.compactSession",
      ref("cmd-compact"),
    );
    assert.ok(result, "Compact Now returned no result (it failed: see the notification)");
    assert.ok(result.closed > 0, `nothing closed: ${JSON.stringify(result)}`);
    const segments = join(dirOf("cmd-compact"), "messages", "segments");
    assert.ok(existsSync(segments) && readdirSync(segments).length > 0, "no segment on disk");
    assert.ok(
      provider.requests.some((r) => JSON.stringify(r.body).includes("q1:")),
      "the summariser never saw the closed history",
    );
  });

  test("as the UI steps 14-17 go (cancelled run, Explorer, a server-listed model), Open Session and Compact Now on the cancelled session still answer", async () => {
    await vscode.commands.executeCommand("downcity.selectModel", { profileId: PROFILE, model: LISTED_MODEL });
    assert.deepEqual(host.config.selection(), { provider: PROFILE, model: LISTED_MODEL });
    await vscode.commands.executeCommand("downcity.showSessionFiles", ref("cmd-delete"));
    await whenEvent("the Explorer to replace the Sessions view", host.view.onDidChangeVisibility, () =>
      host.view.visible ? undefined : true,
    );
    await withTimeout(
      Promise.resolve(vscode.commands.executeCommand("downcity.openSession", ref("cmd-delete"))),
      15_000,
      "Open Session to return",
    );
    await chatShows(ref("cmd-delete"));
    const result = await withTimeout(
      Promise.resolve(
        vscode.commands.executeCommand<{ closed: number; note?: string }>("downcity.compactSession", ref("cmd-delete")),
      ),
      15_000,
      "Compact Now to return",
    );
    assert.ok(result, "Compact Now returned no result (it failed: see the notification)");
    await vscode.commands.executeCommand("downcity.selectModel", { profileId: PROFILE });
  });

  test("Delete Session { confirmed: true } removes it from disk and the tree without a dialog", async () => {
    assert.ok(existsSync(dirOf("cmd-delete")));
    await vscode.commands.executeCommand("downcity.deleteSession", ref("cmd-delete"), { confirmed: true });
    await treeShows("the tree to drop it", () => node("cmd-delete") === undefined);
    assert.ok(!existsSync(dirOf("cmd-delete")), "still on disk");
  });

  test("the API key is in no file of the workspace (settings, sessions, exports)", () => {
    const leaks: string[] = [];
    const scan = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) scan(path);
        else if (readFileSync(path).includes(KEY)) leaks.push(path);
      }
    };
    folders.forEach(scan);
    if (readFileSync(vscode.workspace.workspaceFile!.fsPath, "utf8").includes(KEY))
      leaks.push(vscode.workspace.workspaceFile!.fsPath);
    assert.deepEqual(leaks, []);
  });
});

/** The text of an OpenAI chat request's last message. */
function lastUserText(body: { messages?: { content?: unknown }[] } | undefined): string {
  const content = body?.messages?.at(-1)?.content;
  if (typeof content === "string") return content.trim();
  return Array.isArray(content)
    ? content
        .map((p: { text?: string }) => p.text ?? "")
        .join("")
        .trim()
    : "";
}
