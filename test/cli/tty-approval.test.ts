import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { startProviderServer, wire } from "../support/provider-server";
import { tempWorkspace } from "../support/temp";
import { buildCli, cliEnv, onTerminal, waitFor } from "./helpers";

before(buildCli);

for (const [answer, ran] of [
  ["y", true],
  ["n", false],
] as const) {
  test(`on a terminal, run asks before a command and honours '${answer}'`, async (t) => {
    const root = tempWorkspace(t);
    let n = 0;
    const server = await startProviderServer(() =>
      n++ === 0
        ? {
            sse: wire.openaiChat({
              toolCalls: [{ id: "c1", name: "run_command", arguments: { command: "touch made-by-agent" } }],
            }),
          }
        : { sse: wire.openaiChat({ text: "Done here." }) },
    );
    t.after(() => server.close());
    const tty = onTerminal(["run", "--cwd", root, "make a file"], { ...cliEnv(server.baseURL), TERM: "xterm" });
    await waitFor(
      () => /Allow run_command: run `touch made-by-agent`/.test(tty.screen()),
      15_000,
      "the approval prompt",
    );
    tty.child.stdin.write(`${answer}\r`);
    assert.equal(await tty.done, 0, tty.screen());
    assert.equal(existsSync(join(root, "made-by-agent")), ran);
    assert.match(tty.screen(), /Done here\./);
  });
}
