import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { readSettings } from "../../../extension/config/settings";
import * as fake from "../../support/vscode-fake";

interface ConfigurationNode {
  title: string;
  properties: Record<string, { description?: string; markdownDescription?: string }>;
}

const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "package.json"), "utf8"));
const nodes: ConfigurationNode[] = manifest.contributes.configuration;

/**
 * The title the Settings editor shows for a key, as VS Code 1.100 makes it: the last segment,
 * its camelCase split into capitalised words ("toolResultMaxChars" → "Tool Result Max Chars"),
 * after the category ("Downcity › Compaction: ").
 */
function shownTitle(key: string): string {
  const parts = key.split(".");
  const last = parts.pop()!;
  const words = last.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/^./, (c) => c.toUpperCase());
  const category = parts.map((p) => p.replace(/^./, (c) => c.toUpperCase())).join(" › ");
  return `${category}: ${words}`;
}

test("the Settings editor shows Downcity's settings in plain words: no code points, no seq (issue 19)", () => {
  for (const node of nodes)
    for (const [key, schema] of Object.entries(node.properties)) {
      const shown = `${shownTitle(key)}\n${schema.markdownDescription ?? schema.description ?? ""}`;
      assert.doesNotMatch(shown, /code ?points?/i, `${key} shows: ${shown}`);
      assert.doesNotMatch(shown, /\bseqs?\b/i, `${key} shows: ${shown}`);
    }
});

test("the compaction knobs are the Advanced group's, and only they are", () => {
  const advanced = nodes.find((n) => n.title === "Advanced");
  assert.ok(advanced, "an Advanced group");
  const keys = Object.keys(advanced.properties);
  assert.ok(keys.length > 0);
  assert.ok(
    keys.every((k) => k.startsWith("downcity.compaction.")),
    keys.join(", "),
  );
  for (const node of nodes.filter((n) => n !== advanced))
    assert.ok(!Object.keys(node.properties).some((k) => k.startsWith("downcity.compaction.")), node.title);
});

test("the character limits are read from their plain keys, and from the old code-point keys a user may still have", (t) => {
  const keys = [
    "downcity.compaction.toolResultMaxChars",
    "downcity.compaction.reasoningMaxChars",
    "downcity.compaction.toolResultMaxCodePoints",
    "downcity.compaction.reasoningMaxCodePoints",
  ];
  t.after(() => keys.forEach((k) => delete fake.settings[k]));

  fake.settings["downcity.compaction.toolResultMaxChars"] = 2000;
  fake.settings["downcity.compaction.reasoningMaxChars"] = 1000;
  let read = readSettings();
  assert.equal(read.compaction.toolResultMaxCodePoints, 2000);
  assert.equal(read.compaction.reasoningMaxCodePoints, 1000);
  assert.deepEqual(read.problems, []);

  // The old keys still apply while the new ones are unset; the new ones win when both are.
  keys.forEach((k) => delete fake.settings[k]);
  fake.settings["downcity.compaction.toolResultMaxCodePoints"] = 3000;
  fake.settings["downcity.compaction.reasoningMaxCodePoints"] = 1500;
  read = readSettings();
  assert.equal(read.compaction.toolResultMaxCodePoints, 3000);
  assert.equal(read.compaction.reasoningMaxCodePoints, 1500);
  fake.settings["downcity.compaction.toolResultMaxChars"] = 2500;
  read = readSettings();
  assert.equal(read.compaction.toolResultMaxCodePoints, 2500);

  // An invalid value is named by the key it was read from.
  fake.settings["downcity.compaction.toolResultMaxChars"] = -1;
  read = readSettings();
  assert.equal(read.compaction.toolResultMaxCodePoints, undefined);
  assert.match(read.problems.join("\n"), /^downcity\.compaction\.toolResultMaxChars: /m);
});
