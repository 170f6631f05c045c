/**
 * Parses JSON with comments and trailing commas, as VS Code writes `.vscode/mcp.json`.
 * Comments and trailing commas outside strings are blanked (offsets kept, so JSON.parse's
 * position in an error still points into the original text).
 */
export function parseJsonc(text: string): unknown {
  const out = text.split("");
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      i++;
      while (i < n && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      i++;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < n && text[i] !== "\n") out[i++] = " ";
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end === -1 ? n : end + 2;
      for (; i < stop; i++) if (text[i] !== "\n") out[i] = " ";
    } else if (c === ",") {
      // A comma followed only by blanks (or comments) and a closing bracket is dropped.
      let j = i + 1;
      for (;;) {
        while (j < n && /\s/.test(text[j]!)) j++;
        if (text[j] === "/" && text[j + 1] === "/") while (j < n && text[j] !== "\n") j++;
        else if (text[j] === "/" && text[j + 1] === "*")
          j = text.indexOf("*/", j + 2) === -1 ? n : text.indexOf("*/", j + 2) + 2;
        else break;
      }
      if (text[j] === "}" || text[j] === "]") out[i] = " ";
      i++;
    } else i++;
  }
  return JSON.parse(out.join(""));
}
