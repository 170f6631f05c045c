import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { BUILTIN_TOOL_DEFINITIONS } from "../../core/tools/definitions";
import {
  DEFAULT_MAX_RESULT_CHARS,
  SandboxError,
  ToolError,
  ToolRegistry,
  textOutput,
  type Tool,
  type ToolContext,
} from "../../core/tools";
import { capText } from "../../core/tools/cap";
import { createNodeTools } from "../../core/tools/node";
import { ToolSpec } from "../../core/protocol";

const ctx: ToolContext = { root: "/nonexistent-root", signal: new AbortController().signal };

function echoTool(overrides: Partial<Tool> = {}): Tool<{ text: string; times?: number }> {
  return {
    name: "echo",
    description: "repeat text",
    parameters: z.strictObject({ text: z.string(), times: z.number().int().min(1).default(1) }),
    kind: "read",
    readOnly: true,
    async execute(args) {
      return textOutput(args.text.repeat(args.times ?? 1));
    },
    ...overrides,
  };
}

describe("ToolRegistry", () => {
  it("lists the Node tools with the contract's names, kinds and read-only flags", () => {
    const registry = new ToolRegistry(createNodeTools({ ripgrep: false }));
    const facts = registry.list().map((t) => `${t.name}:${t.kind}:${t.readOnly}`);
    assert.deepEqual(facts, [
      "read_file:read:true",
      "list_dir:read:true",
      "glob:read:true",
      "grep:read:true",
      "edit_file:edit:false",
      "write_file:edit:false",
      "run_command:command:false",
    ]);
    assert.deepEqual(
      BUILTIN_TOOL_DEFINITIONS.map((d) => d.name),
      registry.list().map((t) => t.name),
    );
  });

  it("produces valid ToolSpecs with JSON Schema parameters (defaults optional, no $schema)", () => {
    const registry = new ToolRegistry(createNodeTools({ ripgrep: false }));
    const specs = registry.specs();
    for (const spec of specs) ToolSpec.parse(spec);
    const edit = specs.find((s) => s.name === "edit_file")!;
    assert.equal(edit.parameters.type, "object");
    assert.equal("$schema" in edit.parameters, false);
    assert.deepEqual(edit.parameters.required, ["path", "edits"]);
    assert.equal(edit.parameters.additionalProperties, false);
    const list = specs.find((s) => s.name === "list_dir")!;
    assert.equal(list.parameters.required, undefined, "path has a default, so it is optional for the model");
  });

  it("refuses duplicate and malformed names unless replacing", () => {
    const registry = new ToolRegistry([echoTool()]);
    assert.throws(() => registry.register(echoTool()), /already registered/);
    assert.throws(() => registry.register(echoTool({ name: "bad name!" })), /invalid tool name/);
    registry.register(echoTool({ description: "host version" }), { replace: true });
    assert.equal(registry.get("echo")!.description, "host version");
    assert.equal(registry.specs()[0]!.description, "host version");
  });

  it("parse() explains unknown tools, bad JSON and schema violations", () => {
    const registry = new ToolRegistry([echoTool()]);
    const unknown = registry.parse("nope", {});
    assert.equal(unknown.ok, false);
    assert.match((unknown as { error: string }).error, /unknown tool 'nope' \(available: echo\)/);
    const badJson = registry.parse("echo", "{oops");
    assert.match((badJson as { error: string }).error, /not valid JSON/);
    const bad = registry.parse("echo", { text: 1, extra: true });
    assert.equal(bad.ok, false);
    assert.match((bad as { error: string }).error, /invalid arguments for echo:[\s\S]*expected string[\s\S]*text/);
    assert.match((bad as { error: string }).error, /Unrecognized key: "extra"/);
    const good = registry.parse("echo", '{"text":"hi"}');
    assert.deepEqual(good.ok && good.args, { text: "hi", times: 1 });
  });

  it("run() turns thrown errors into isError results instead of throwing", async () => {
    const failing = (err: unknown) =>
      echoTool({
        async execute() {
          throw err;
        },
      });
    const cases: [unknown, RegExp][] = [
      [new SandboxError("nope"), /^sandbox: nope$/],
      [new ToolError("file not found"), /^file not found$/],
      [new Error("boom"), /^echo failed: boom$/],
      ["a string", /^echo failed: a string$/],
    ];
    for (const [err, message] of cases) {
      const out = await new ToolRegistry([failing(err)]).run("echo", { text: "x" }, ctx);
      assert.equal(out.isError, true);
      assert.match((out.content[0] as { text: string }).text, message);
    }
    const invalid = await new ToolRegistry([echoTool()]).run("echo", {}, ctx);
    assert.equal(invalid.isError, true);
  });

  it("run() does not start a tool once the signal is aborted", async () => {
    let ran = false;
    const registry = new ToolRegistry([
      echoTool({
        async execute() {
          ran = true;
          return textOutput("x");
        },
      }),
    ]);
    const controller = new AbortController();
    controller.abort();
    const out = await registry.run("echo", { text: "x" }, { ...ctx, signal: controller.signal });
    assert.equal(out.isError, true);
    assert.equal(ran, false);
  });

  it("run() reports a tool that stops on an aborted signal as cancelled", async () => {
    const controller = new AbortController();
    const registry = new ToolRegistry([
      echoTool({
        async execute(_args, c) {
          controller.abort();
          c.signal.throwIfAborted();
          return textOutput("not reached");
        },
      }),
    ]);
    const out = await registry.run("echo", { text: "x" }, { ...ctx, signal: controller.signal });
    assert.equal(out.isError, true);
    assert.equal((out.content[0] as { text: string }).text, "echo was cancelled");
  });

  it("run() caps results to maxResultChars with a note, keeping head and tail", async () => {
    const registry = new ToolRegistry([echoTool({ maxResultChars: 1_000 })]);
    const long = "H".repeat(3_000) + "MIDDLE" + "T".repeat(3_000);
    const out = await registry.run("echo", { text: long }, ctx);
    const t = (out.content[0] as { text: string }).text;
    assert.equal(out.truncated, true);
    assert.ok(t.length <= 1_000, `capped length ${t.length}`);
    assert.ok(t.startsWith("HHHH") && t.endsWith("TTTT"));
    assert.doesNotMatch(t, /MIDDLE/);
    assert.match(t, /output truncated: [\d,]+ of 6,006 characters omitted/);
    const small = await registry.run("echo", { text: "short" }, ctx);
    assert.equal(small.truncated, undefined);
    assert.equal((small.content[0] as { text: string }).text, "short");
  });

  it("uses the default cap when a tool sets none", async () => {
    const registry = new ToolRegistry([echoTool()]);
    const out = await registry.run("echo", { text: "x", times: DEFAULT_MAX_RESULT_CHARS * 2 }, ctx);
    assert.equal(out.truncated, true);
    assert.ok((out.content[0] as { text: string }).text.length <= DEFAULT_MAX_RESULT_CHARS);
  });

  it("capText never splits a surrogate pair", () => {
    const emoji = "😀".repeat(2_000);
    for (const max of [501, 502, 503, 777]) {
      const { text } = capText(emoji, max);
      assert.doesNotMatch(text, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/, `max ${max}`);
    }
  });
});
