// The MCP tool card in real Chromium under the chat's real CSP: result images drawn from
// checked bytes as blob: URLs (a real PNG from server-everything), refused ones named, no
// "[image …]" text; and the approval card's "Always allow" buttons sending scope "always".
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ev, helloWith, REF, skipReason, snapshot, useChat, userEv, violations } from "../support/webview/harness";

const ROOT = join(__dirname, "..", "..");
const open = useChat();
const base = { sessionId: REF.sessionId, agentId: REF.agentId };
const TOOL = "mcp__everything__get-tiny-image";
const PNG = /MCP_TINY_IMAGE = "([^"]+)"/.exec(
  readFileSync(join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js"), "utf8"),
)![1]!;
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"></svg>').toString("base64");

function call(id: string) {
  return ev(2, "assistant/message", { content: [{ type: "tool-call", id, name: TOOL, arguments: {} }] });
}

test(
  "an MCP result's PNG is drawn in its card (blob: URL, natural width > 0); SVG, mislabelled bytes and oversize are named, not drawn",
  { skip: skipReason },
  async (t) => {
    const result = ev(3, "tool/result", {
      toolCallId: "i1",
      toolName: TOOL,
      outcome: "done",
      content: [
        { type: "text", text: "Here's the image you requested:" },
        { type: "image", mediaType: "image/png", data: PNG },
        { type: "image", mediaType: "image/svg+xml", data: SVG },
        { type: "image", mediaType: "image/jpeg", data: PNG },
        { type: "image", mediaType: "image/png", data: "A".repeat(1_000_004) },
        { type: "text", text: "The image above is the MCP logo." },
      ],
    });
    const chat = await open(t, helloWith(snapshot([userEv(1, "Show the image"), call("i1"), result])));
    const card = chat.page.getByRole("group", { name: `Tool ${TOOL}: done`, exact: true });
    const img = card.getByRole("img", { name: "Image 1 of the result (image/png)", exact: true });
    await img.waitFor();
    await chat.page.waitForFunction(
      () => ((document.querySelector("img.tool-image") as HTMLImageElement | null)?.naturalWidth ?? 0) > 0,
    );
    const drawn = await img.evaluate((e: HTMLImageElement) => ({ w: e.naturalWidth, src: e.src }));
    assert.equal(drawn.w, 20, "the 20×20 MCP logo decoded");
    assert.match(drawn.src, /^blob:/);
    assert.equal(await card.locator("img").count(), 1, "only the valid image is an <img>");
    assert.equal(await card.locator(".tool-image-refused").count(), 3);
    assert.match(await card.locator(".tool-image-refused").first().innerText(), /image\/svg\+xml image not shown/);
    const text = await card.innerText();
    assert.doesNotMatch(text, /\[image image\//, "no placeholder text for an image");
    await card.locator("details.tool-out > summary").click();
    assert.match(
      await card.locator(".tool-output").innerText(),
      /Here's the image you requested:\nThe image above is the MCP logo\./,
    );
    assert.deepEqual(await violations(chat.page), [], "the CSP allowed the blob: image and nothing was blocked");
  },
);

test(
  "an MCP approval card offers Always allow (tool) and Always allow server, sent as scope always; other cards do not",
  { skip: skipReason },
  async (t) => {
    const pending = (toolCallId: string, toolName: string, mcp?: { server: string; tool: string }) => ({
      type: "approval-requested" as const,
      ...base,
      toolCallId,
      toolName,
      kind: "command" as const,
      summary: `call ${toolName}`,
      ...(mcp ? { mcp } : {}),
    });
    const snap = snapshot(
      [
        userEv(1, "Go"),
        ev(2, "assistant/message", {
          content: [
            { type: "tool-call", id: "m1", name: "mcp__everything__echo", arguments: { message: "hi" } },
            { type: "tool-call", id: "c1", name: "run_command", arguments: { command: "ls" } },
          ],
        }),
      ],
      {
        running: true,
        pendingApprovals: [
          pending("m1", "mcp__everything__echo", { server: "everything", tool: "echo" }),
          pending("c1", "run_command"),
        ],
      },
    );
    for (const [button, always] of [
      ["Always allow", "tool"],
      ["Always allow server", "server"],
    ] as const) {
      const chat = await open(t, (host) => helloWith(snap)(host).on("approve", () => ({ resolved: true })));
      const mcp = chat.page.getByRole("group", { name: "Tool mcp__everything__echo: waiting for approval" });
      const cmd = chat.page.getByRole("group", { name: "Tool run_command: waiting for approval" });
      await mcp.getByRole("button", { name: button, exact: true }).waitFor();
      assert.equal(
        await cmd.getByRole("button", { name: /^Always allow/ }).count(),
        0,
        "a built-in tool has no 'always'",
      );
      await mcp.getByRole("button", { name: button, exact: true }).click();
      await chat.host.waitFor("approve");
      const sent = chat.host.sent.find((s) => s.method === "approve")!;
      assert.deepEqual(sent.params, {
        ref: REF,
        toolCallId: "m1",
        decision: { approved: true, scope: "always", always },
      });
    }
  },
);

test(
  "rules-changed from the host (a rules file changed on disk) refreshes the chips with no turn; another folder's is ignored",
  { skip: skipReason },
  async (t) => {
    let files = [{ path: "AGENTS.md", scope: "", chars: 120, state: "whole" as const }];
    const { page, host } = await open(t, (host) =>
      helloWith(snapshot([userEv(1, "hi")]))(host).on("sessionRules", () => ({ files, budgetTokens: 8000 })),
    );
    const group = page.getByRole("group", { name: "Rules files" });
    await group.getByRole("button", { name: "Open rules file AGENTS.md" }).waitFor();
    await host.waitFor("sessionRules");
    const asked = () => host.sent.filter((s) => s.method === "sessionRules").length;
    const before = asked();
    await host.event({ type: "rules-changed", folderKey: "file:///elsewhere" });
    files = [...files, { path: "CLAUDE.md", scope: "", chars: 40, state: "whole" as const }];
    await host.event({ type: "rules-changed", folderKey: REF.folderKey });
    await group.getByRole("button", { name: "Open rules file CLAUDE.md" }).waitFor();
    assert.equal(await group.getByRole("button").count(), 2);
    assert.equal(asked(), before + 1, "one request, for the shown session's folder only");
  },
);
