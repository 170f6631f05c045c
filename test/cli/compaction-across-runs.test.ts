import assert from "node:assert/strict";
import { before, test } from "node:test";
import { startProviderServer, wire } from "../support/provider-server";
import { tempWorkspace } from "../support/temp";
import { PROTOCOLS_UNDER_TEST } from "../llm/helpers";
import { isSummaryRequest } from "../compaction/helpers";
import { buildCli, cliEnv, runCli } from "./helpers";

before(buildCli);

const WINDOW = 20_000;

// Issue 10: each `downcity run --session ID` is a new process; the compaction cycle must
// continue from the log, not start over with a compaction that closes nothing.
for (const protocol of PROTOCOLS_UNDER_TEST) {
  test(`three runs answered at 96 % compact across processes and show where (${protocol})`, async (t) => {
    const root = tempWorkspace(t);
    let summaries = 0;
    let answers = 0;
    const server = await startProviderServer(({ body }) => {
      if (isSummaryRequest(body))
        return {
          sse: wire.frames(protocol, {
            text: `SUMMARY-${++summaries} of the session so far`,
            usage: { input: 500, output: 20 },
          }),
        };
      return {
        sse: wire.frames(protocol, {
          text: `Answer ${++answers}: done.`,
          usage: { input: 0.96 * WINDOW - 100, output: 100 },
        }),
      };
    });
    t.after(() => server.close());
    const env = cliEnv(protocol === "anthropic-messages" ? server.anthropicBaseURL : server.baseURL, {
      DOWNCITY_PROTOCOL: protocol,
      DOWNCITY_MODEL: protocol === "anthropic-messages" ? "claude-opus-4-5" : "gpt-4o",
      DOWNCITY_CONTEXT_WINDOW: String(WINDOW),
    });
    const run = async (args: string[]) => {
      const r = await runCli(["run", "--cwd", root, ...args], env);
      assert.equal(r.code, 0, r.stderr);
    };
    const show = async (...args: string[]) => {
      const r = await runCli(["sessions", "show", id, "--cwd", root, ...args], env);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout;
    };

    await run(["FIRST-TURN please look at the parser"]);
    const id = JSON.parse((await runCli(["sessions", "list", "--cwd", root, "--json"], env)).stdout)[0]
      .sessionId as string;
    await run(["--session", id, "SECOND-TURN and now the tests"]);

    // After the second run at the latest, a segment with a summary footer exists.
    const page = JSON.parse(await show("--json"));
    assert.equal(page.hasOlder, true, "a segment was closed");
    assert.match(page.summary ?? "", /SUMMARY-1/);
    const afterSummary = server.requests
      .map((r) => r.body)
      .filter((b) => !isSummaryRequest(b))
      .at(-1);
    const sent = JSON.stringify(afterSummary);
    assert.match(sent, /SUMMARY-1/, "the request after the summary carries it");
    assert.doesNotMatch(sent, /FIRST-TURN/, "and not the first turn's text");
    assert.match(sent, /SECOND-TURN/);

    await run(["--session", id, "THIRD-TURN and the docs"]);
    assert.equal(summaries, 2, "every run after the first closed its predecessor: no empty compaction loop");
    const third = JSON.stringify(
      server.requests
        .map((r) => r.body)
        .filter((b) => !isSummaryRequest(b))
        .at(-1),
    );
    assert.match(third, /SUMMARY-2/);
    assert.doesNotMatch(third, /FIRST-TURN|SECOND-TURN/);

    // `sessions show` says where each compaction happened: summary, closed, usage before/after.
    const active = await show();
    assert.match(
      active,
      /compaction \(#\d+, verify-failed, deep\) — closed 2 messages \(history through #\d+\); usage before 19,200 of 20,000 tokens \(96 %\), after 19,200 of 20,000 tokens \(96 %\)/,
    );
    assert.match(active, /> SUMMARY-2 of the session so far/);
    const older = await show("--before", String(page.firstSeq));
    assert.match(
      older,
      /compaction \(#\d+, usage\) — nothing closed: the retained tail \([\d,]+ characters\) already holds every message; usage before 19,200 of 20,000 tokens \(96 %\)/,
    );
  });
}
