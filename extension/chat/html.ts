/**
 * The chat document: strict CSP (one nonce'd script, styles and fonts only from the
 * extension's media, images from there or from the webview's own blob: URLs, no eval,
 * no remote content, nothing inline). Shared by the
 * WebviewView, the editor panel and the browser test harness so all three run under
 * exactly the same policy.
 */
export interface ChatHtmlOptions {
  /** `webview.cspSource`: the origin the extension's resources are served from. */
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
  codiconsUri: string;
}

export function chatCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    // blob: only for the tool cards' result images, made by the webview's own code from
    // checked bytes (views/tool-images.ts); no data:, no remote images.
    `img-src ${cspSource} blob:`,
    "connect-src 'none'",
    "media-src 'none'",
    "frame-src 'none'",
    "worker-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

export function chatHtml(o: ChatHtmlOptions): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${attr(chatCsp(o.cspSource, o.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${attr(o.codiconsUri)}">
<link rel="stylesheet" href="${attr(o.styleUri)}">
<title>Downcity Chat</title>
</head>
<body>
<div id="app"></div>
<script nonce="${attr(o.nonce)}" src="${attr(o.scriptUri)}"></script>
</body>
</html>`;
}

/** 128 random bits, base64: a fresh nonce per document. */
export function makeNonce(
  random: (bytes: Uint8Array) => Uint8Array = (b) => globalThis.crypto.getRandomValues(b),
): string {
  return Buffer.from(random(new Uint8Array(16))).toString("base64");
}

function attr(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}
