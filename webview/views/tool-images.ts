import { html, nothing, type TemplateResult } from "lit-html";
import type { ToolResultPart } from "../../core/protocol";

type ImagePart = Extract<ToolResultPart, { type: "image" }>;

/** The raster types a card draws; SVG never (it is a document, not pixels). */
const TYPES: Record<string, (b: Uint8Array) => boolean> = {
  "image/png": (b) => starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  "image/jpeg": (b) => starts(b, [0xff, 0xd8, 0xff]),
  "image/gif": (b) => starts(b, [0x47, 0x49, 0x46, 0x38]),
  "image/webp": (b) => starts(b, [0x52, 0x49, 0x46, 0x46]) && starts(b.subarray(8), [0x57, 0x45, 0x42, 0x50]),
};
/** As the host keeps them (core/mcp/results.ts MAX_IMAGE_CHARS): larger ones never reach a card. */
export const MAX_CARD_IMAGE_CHARS = 1_000_000;
/** Object URLs kept alive; the oldest is revoked past this (re-made if its card draws again). */
const KEEP = 64;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const urls = new Map<string, string | null>();

function starts(b: Uint8Array, magic: number[]): boolean {
  return magic.every((x, i) => b[i] === x);
}

/**
 * An image part as a `blob:` URL the chat's CSP allows (`img-src … blob:`): only from an
 * allowlisted type whose bytes really are that type, within the size cap. Model output
 * cannot make one (markdown drops <img>, and only this code creates blob URLs). Null
 * when the part is refused.
 */
export function imageUrl(key: string, part: ImagePart): string | null {
  const known = urls.get(key);
  if (known !== undefined) return known;
  const url = makeUrl(part);
  urls.set(key, url);
  if (urls.size > KEEP) {
    const [oldKey, old] = urls.entries().next().value as [string, string | null];
    urls.delete(oldKey);
    if (old) URL.revokeObjectURL(old);
  }
  return url;
}

function makeUrl(part: ImagePart): string | null {
  const sniff = TYPES[part.mediaType];
  if (!sniff || part.data.length > MAX_CARD_IMAGE_CHARS || !BASE64.test(part.data)) return null;
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = Uint8Array.from(atob(part.data), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
  if (!sniff(bytes)) return null;
  return URL.createObjectURL(new Blob([bytes], { type: part.mediaType }));
}

/** A tool result's images under its card: drawn when valid, named when refused. */
export function toolImages(toolCallId: string, parts: readonly ToolResultPart[]): TemplateResult | typeof nothing {
  const images = parts.flatMap((p, i) => (p.type === "image" ? [{ p, i }] : []));
  if (images.length === 0) return nothing;
  return html`<div class="tool-images">
    ${images.map(({ p, i }, n) => {
      const url = imageUrl(`${toolCallId}:${i}`, p);
      const name = `Image ${n + 1} of the result (${p.mediaType})`;
      return url
        ? html`<img class="tool-image" src=${url} alt=${name} title=${name} />`
        : html`<div class="tool-image-refused">
            [${p.mediaType} image not shown: not a PNG, JPEG, GIF or WebP within
            ${MAX_CARD_IMAGE_CHARS.toLocaleString("en-US")} characters]
          </div>`;
    })}
  </div>`;
}
