import { strict as assert } from "node:assert";
import { test } from "node:test";
import { lowStock, restock } from "./inventory";

const items = [
  { sku: "a", name: "bolts", quantity: 3 },
  { sku: "b", name: "nuts", quantity: 40 },
];

test("lowStock lists items at or below the threshold", () => {
  assert.deepEqual(lowStock(items, 5).map((i) => i.sku), ["a"]);
});

test("restock changes only the given SKU", () => {
  assert.deepEqual(restock(items, "a", 10).map((i) => i.quantity), [13, 40]);
});
