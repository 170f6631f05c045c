import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { before, test } from "node:test";
import { Sessions } from "../../core/storage";
import { tempWorkspace } from "../support/temp";
import { buildCli, CLI } from "./helpers";

before(buildCli);

test("a reader that closes the pipe early (`| head`) ends the output quietly: exit 0, no stack trace", async (t) => {
  const root = tempWorkspace(t);
  const sessions = new Sessions({ root, batchWindowMs: 1 });
  const s = sessions.create({ id: "long", agentId: "code" });
  // Far more than a pipe buffer (64 KiB) of export output.
  for (let i = 0; i < 400; i++)
    s.append("user/message", { content: [{ type: "text", text: `line ${i} `.repeat(40) }] }, { surface: "append" });
  await sessions.close();

  const child = spawn(process.execPath, [CLI, "sessions", "export", "long", "--format", "jsonl", "--cwd", root], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  // Read the first chunk, then close our end as `head` does.
  child.stdout.once("data", () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  assert.equal(stderr.includes("    at "), false, stderr);
  assert.equal(code, 0, stderr);
});
