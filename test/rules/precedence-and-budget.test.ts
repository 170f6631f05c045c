import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { ProjectRules, touchedPaths } from "../../core/rules";
import { RULES_FILE_CAP } from "../../core/rules/read";
import { tempDir } from "../support/temp";

function write(root: string, path: string, text: string): void {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
}

test("Rules: precedence — the root's AGENTS.md, then each touched folder's, nearest last and labelled", async (t) => {
  const root = tempDir(t, "downcity-rules-");
  write(root, "AGENTS.md", "Indent with tabs.");
  write(root, "src/AGENTS.md", "In src: indent with 2 spaces.");
  write(root, "src/api/AGENTS.md", "In src/api: indent with 4 spaces.");
  write(root, "docs/AGENTS.md", "Docs are prose.");
  write(root, "src/api/handler.ts", "export {}");
  const rules = new ProjectRules({ root });

  const untouched = await rules.load([]);
  assert.deepEqual(
    untouched.files.map((f) => f.path),
    ["AGENTS.md"],
    "only the root applies before the task touches a folder",
  );

  const loaded = await rules.load(["src/api/handler.ts"]);
  assert.deepEqual(
    loaded.files.map((f) => [f.path, f.scope, f.state]),
    [
      ["AGENTS.md", "", "whole"],
      ["src/AGENTS.md", "src", "whole"],
      ["src/api/AGENTS.md", "src/api", "whole"],
    ],
  );
  // Root first, nearest last: the order is the merge rule the prompt states.
  const text = loaded.text;
  assert.ok(
    text.indexOf("Indent with tabs.") < text.indexOf("In src:") &&
      text.indexOf("In src:") < text.indexOf("In src/api:"),
  );
  assert.match(text, /where two conflict, the later one \(nearer the files it applies to\) wins/);
  assert.match(text, /## src\/api\/AGENTS\.md \(applies to src\/api\/\)\nIn src\/api: indent with 4 spaces\./);
  assert.match(text, /## AGENTS\.md \(applies to the whole workspace\)/);
  assert.doesNotMatch(text, /Docs are prose/, "an untouched folder's rules do not apply");
});

test("Rules: the setting's extra files — CLAUDE.md, .github/copilot-instructions.md (root only), a .clinerules folder", async (t) => {
  const root = tempDir(t, "downcity-rules-");
  write(root, "AGENTS.md", "agents root");
  write(root, "CLAUDE.md", "claude root");
  write(root, ".github/copilot-instructions.md", "copilot root");
  write(root, "pkg/.github/copilot-instructions.md", "never read: not at the root");
  write(root, "pkg/CLAUDE.md", "claude pkg");
  write(root, ".clinerules/01-style.md", "cline style");
  write(root, ".clinerules/02-tests.md", "cline tests");
  let files: string[] = [];
  const rules = new ProjectRules({ root, files: () => files });

  assert.deepEqual(
    (await rules.load(["pkg/a.ts"])).files.map((f) => f.path),
    ["AGENTS.md"],
    "AGENTS.md alone by default",
  );
  files = ["CLAUDE.md", ".github/copilot-instructions.md", ".clinerules", "../outside.md", "/etc/passwd"];
  const loaded = await rules.load(["pkg/a.ts"]);
  assert.deepEqual(
    loaded.files.map((f) => f.path),
    [
      "AGENTS.md",
      "CLAUDE.md",
      ".github/copilot-instructions.md",
      ".clinerules/01-style.md",
      ".clinerules/02-tests.md",
      "pkg/CLAUDE.md",
    ],
  );
  assert.doesNotMatch(loaded.text, /never read/);
  assert.match(loaded.text, /cline tests/);
});

test("Rules: the budget — nearest kept whole, the one that crosses it truncated with a marker, farther ones left out, all named", async (t) => {
  const root = tempDir(t, "downcity-rules-");
  write(root, "AGENTS.md", "R".repeat(2_000));
  write(root, "a/AGENTS.md", "A".repeat(2_000));
  write(root, "a/b/AGENTS.md", "B".repeat(300));
  // 500 tokens = 2,000 characters: b (300) whole, a cut to 1,700, the root left out.
  const rules = new ProjectRules({ root, budgetTokens: () => 500 });
  const loaded = await rules.load(["a/b/file.ts"]);
  const byPath = Object.fromEntries(loaded.files.map((f) => [f.path, f]));
  assert.equal(byPath["a/b/AGENTS.md"]!.state, "whole");
  assert.equal(byPath["a/AGENTS.md"]!.state, "truncated");
  assert.match(byPath["a/AGENTS.md"]!.note!, /kept 1,700 of 2,000 characters \(rules budget of 500 tokens\)/);
  assert.equal(byPath["AGENTS.md"]!.state, "omitted");
  assert.equal(loaded.budgetTokens, 500);
  assert.ok(loaded.text.includes("B".repeat(300)));
  assert.ok(
    loaded.text.includes(
      `${"A".repeat(1_700)}\n[… truncated: 1,700 of 2,000 characters kept by the rules budget of 500 tokens]`,
    ),
  );
  assert.ok(!loaded.text.includes("A".repeat(1_701)));
  assert.ok(!loaded.text.includes("RRRR"));
  assert.match(loaded.text, /\[Rules budget 500 tokens: AGENTS\.md left out; a\/AGENTS\.md truncated\.\]/);
  // The rules' text stays within the budget (plus the fixed framing and markers).
  const body = (loaded.text.match(/A{100,}|B{100,}/g) ?? []).join("");
  assert.equal(body.length, 2_000);

  const none = await new ProjectRules({ root, budgetTokens: () => 0 }).load([]);
  assert.equal(none.text, "", "a budget of 0 sends no rules");
  assert.equal(none.files[0]!.state, "omitted");
});

test("Rules: untrusted files — a symlink (file or folder) is refused, a FIFO does not hang, a huge file is capped, control characters go", async (t) => {
  const root = tempDir(t, "downcity-rules-");
  const outside = tempDir(t, "downcity-outside-");
  write(outside, "AGENTS.md", "SECRET from outside");
  write(root, "AGENTS.md", `${"x".repeat(RULES_FILE_CAP)}tail beyond the cap`);
  symlinkSync(join(outside, "AGENTS.md"), join(root, "CLAUDE.md"));
  symlinkSync(outside, join(root, "linked"));
  mkdirSync(join(root, "pipe"));
  mkfifo(join(root, "pipe", "AGENTS.md"));
  write(root, "ctl/AGENTS.md", "bell\u0007 nul\u0000 ok\r\nline2");
  const rules = new ProjectRules({ root, files: () => ["CLAUDE.md"] });
  const loaded = await rules.load(["linked/x.ts", "pipe/y.ts", "ctl/z.ts"]);
  const byPath = Object.fromEntries(loaded.files.map((f) => [f.path, f]));
  assert.equal(byPath["CLAUDE.md"]!.state, "refused");
  assert.match(byPath["CLAUDE.md"]!.note!, /symbolic link/);
  assert.equal(byPath["linked/AGENTS.md"]!.state, "refused");
  assert.equal(byPath["pipe/AGENTS.md"]!.state, "refused");
  assert.match(byPath["pipe/AGENTS.md"]!.note!, /not a regular file/);
  assert.equal(byPath["AGENTS.md"]!.chars, RULES_FILE_CAP);
  assert.doesNotMatch(loaded.text, /SECRET|tail beyond the cap/);
  assert.match(loaded.text, /bell nul ok\nline2/);
});

function mkfifo(path: string): void {
  execFileSync("mkfifo", [path]);
}

test("Rules: a change reaches the next load; an unchanged file costs one lstat and no read (stat-based cache)", async (t) => {
  const root = tempDir(t, "downcity-rules-");
  write(root, "AGENTS.md", "version one");
  write(root, "src/AGENTS.md", "src rules");
  const rules = new ProjectRules({ root });
  assert.match((await rules.load(["src/a.ts"])).text, /version one/);
  assert.equal(rules.counters.reads, 2);

  const before = { ...rules.counters };
  await rules.load(["src/a.ts"]);
  assert.equal(rules.counters.reads - before.reads, 0, "nothing is read again while the files are unchanged");
  // Lstats per load: AGENTS.md, src (dir), src/AGENTS.md, src/a.ts (as a folder), src/a.ts/AGENTS.md is not reached.
  assert.ok(rules.counters.lstats - before.lstats <= 4, `lstats per load: ${rules.counters.lstats - before.lstats}`);

  write(root, "AGENTS.md", "version two, longer");
  const later = new Date(Date.now() + 5_000);
  utimesSync(join(root, "AGENTS.md"), later, later);
  const changed = await rules.load(["src/a.ts"]);
  assert.match(changed.text, /version two, longer/);
  assert.doesNotMatch(changed.text, /version one/);
  assert.equal(rules.counters.reads - before.reads, 1, "only the changed file is read again");
});

test("touchedPaths: tool-call path arguments and attachments, inside the folder only", () => {
  const root = "/work/ws";
  const paths = touchedPaths(
    [
      {
        role: "user",
        content: [{ type: "text", text: "see", attachment: { kind: "file", label: "lib/x.ts", path: "lib/x.ts" } }],
      },
      {
        role: "assistant",
        content: [
          { type: "tool-call", id: "1", name: "read_file", arguments: { path: "./src/a.ts" } },
          { type: "tool-call", id: "2", name: "read_file", arguments: { path: "/work/ws/pkg/b.ts" } },
          { type: "tool-call", id: "3", name: "read_file", arguments: { path: "../escape.ts" } },
          { type: "tool-call", id: "4", name: "read_file", arguments: { path: "/etc/passwd" } },
          { type: "tool-call", id: "5", name: "run_command", arguments: { command: "ls" } },
        ],
      },
    ],
    root,
  );
  assert.deepEqual(paths.sort(), ["lib/x.ts", "pkg/b.ts", "src/a.ts"]);
});
