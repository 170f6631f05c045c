import assert from "node:assert/strict";
import { test } from "node:test";
import { DENY_REASON_MAX, denyReason } from "../../core/protocol";

test("a denial's reason is one line of plain text: controls, separators and bidi marks go, spaces fold", () => {
  assert.equal(denyReason("  use the\n\tdry run\u2028please \u202eevil\u200b "), "use the dry run please evil");
  assert.equal(denyReason("a\u0000b\u0085c"), "a b c");
  // Markup is text: kept, for the surfaces to show as text (none renders it).
  assert.equal(denyReason("<img src=x onerror=alert(1)>"), "<img src=x onerror=alert(1)>");
});

test("nothing left is no reason", () => {
  assert.equal(denyReason(undefined), undefined);
  assert.equal(denyReason(""), undefined);
  assert.equal(denyReason(" \n\u202e\u200b "), undefined);
  assert.equal(denyReason(42 as unknown as string), undefined);
});

test("a long reason is cut at DENY_REASON_MAX code points with an ellipsis, never inside a surrogate pair", () => {
  const exact = "y".repeat(DENY_REASON_MAX);
  assert.equal(denyReason(exact), exact);
  const cut = denyReason("😀".repeat(DENY_REASON_MAX + 10))!;
  assert.equal(Array.from(cut).length, DENY_REASON_MAX);
  assert.ok(cut.endsWith("😀…"));
  assert.equal(denyReason(`${"z".repeat(DENY_REASON_MAX - 2)}   tail`), `${"z".repeat(DENY_REASON_MAX - 2)}…`);
});
