/** A summariser call (its system prompt), as opposed to a turn's request, in any protocol. */
export const isSummaryRequest = (body: unknown): boolean =>
  JSON.stringify(body).includes("You maintain the cumulative summary");

/**
 * Characters of the string values in a request body (keys and JSON syntax left out): the
 * scripted "one token per character". `only` counts just the strings it accepts.
 */
export function stringChars(value: unknown, only: (text: string) => boolean = () => true): number {
  if (typeof value === "string") return only(value) ? value.length : 0;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + stringChars(v, only), 0);
  if (value && typeof value === "object")
    return Object.values(value).reduce((n: number, v) => n + stringChars(v, only), 0);
  return 0;
}
