// The workspace the in-host tests open: a multi-root workspace of two folders, the
// first with sessions stored by the real core store before code-server starts (so the
// extension finds them cold on disk, as after a restart).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Sessions } from "../../core/storage";
import { assistant, user } from "./events";

/** What the in-host tests read from DOWNCITY_HOST_WORKSPACE to know what was seeded. */
export interface HostWorkspaceInfo {
  folders: string[];
  seeded: { folder: string; agentId: string; sessionId: string; title: string }[];
}

export async function seedHostWorkspace(dir: string): Promise<{ open: string; info: HostWorkspaceInfo }> {
  const folders = [join(dir, "alpha"), join(dir, "beta")];
  for (const folder of folders) mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folders[0]!, "hello.ts"),
    'export function greet(name: string): string {\n  return "hello " + name;\n}\n',
  );
  writeFileSync(join(folders[1]!, "README.md"), "# beta\n");

  const seeded: HostWorkspaceInfo["seeded"] = [];
  // A fixed clock per session, so "newest first" has one right answer.
  let now = Date.parse("2026-01-01T10:00:00Z");
  const sessions = new Sessions({ root: folders[0]!, clock: () => now });
  for (const [id, title] of [
    ["seed-older", "Seeded older session"],
    ["seed-newer", "Seeded newer session"],
  ] as const) {
    now += 60_000;
    const session = sessions.create({ id });
    const seq = user(session, `question for ${title}`);
    assistant(session, `answer for ${title}`);
    session.append("session/title", { title, messageSeqs: [seq], source: { kind: "user" } });
    await sessions.flush(session);
    seeded.push({ folder: folders[0]!, agentId: session.agentId, sessionId: id, title });
  }
  await sessions.close();

  // The second folder's sessions are what the command tests change (the first's tree stays as seeded).
  const long = (what: string) => `${what}: ${"a line of history long enough to be worth compacting. ".repeat(6)}`;
  const beta = new Sessions({ root: folders[1]!, clock: () => now });
  for (const [id, title, turns] of [
    ["cmd-two-turns", "Two turns to fork", ["first question", "first answer", "second question", "second answer"]],
    ["cmd-compact", "Long enough to compact", [long("q1"), long("a1"), long("q2"), long("a2")]],
    ["cmd-delete", "Delete me", ["doomed question", "doomed answer"]],
  ] as const) {
    now += 60_000;
    const session = beta.create({ id, agentId: "code" });
    turns.forEach((text, i) => (i % 2 === 0 ? user(session, text) : assistant(session, text)));
    session.append("session/title", { title, messageSeqs: [1], source: { kind: "user" } });
    await beta.flush(session);
    seeded.push({ folder: folders[1]!, agentId: "code", sessionId: id, title });
  }
  await beta.close();

  const open = join(dir, "host-tests.code-workspace");
  // A provider profile without a key: the SecretStorage test sets one.
  const settings = {
    "downcity.providers": [
      { id: "local", protocol: "openai-chat", baseURL: "http://127.0.0.1:9/v1", model: "host-test-model" },
    ],
  };
  writeFileSync(open, JSON.stringify({ folders: folders.map((path) => ({ path })), settings }, null, 2));
  return { open, info: { folders, seeded } };
}
