// The floor for the first-five-minutes figures: the same trips Downcity makes (webview ↔
// extension host ↔ loopback provider, SecretStorage, a user setting, a status bar item)
// with nothing of ours in between. Plain JS, no build step: it is loaded as is through
// extensionDevelopmentPath by bench/host/first-figures.ts.
const vscode = require("vscode");
const crypto = require("node:crypto");
const fs = require("node:fs");

/** The same hop trace as Downcity's (core/util/hop-trace.ts), so the bench lines the two up. */
const hop = (name) =>
  process.env.DOWNCITY_HOP_TRACE &&
  fs.appendFileSync(
    process.env.DOWNCITY_HOP_TRACE,
    `${JSON.stringify({ hop: name, t: performance.timeOrigin + performance.now() })}\n`,
  );

exports.activate = (context) => {
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right);
  status.text = "Floor: no model";
  status.show();
  context.subscriptions.push(
    status,
    vscode.window.registerWebviewViewProvider("floorChat.chat", {
      resolveWebviewView(view) {
        const nonce = crypto.randomBytes(16).toString("base64");
        view.webview.options = { enableScripts: true };
        view.webview.html = page(nonce, view.webview.cspSource);
        view.webview.onDidReceiveMessage(async (message) => {
          hop(`rpc ${message.type} in`);
          try {
            if (message.type === "send") await send(view.webview, message.text);
            if (message.type === "connect") {
              await connect(context, message);
              status.text = `Floor: ${message.model}`;
              view.webview.postMessage({ type: "connected" });
            }
          } catch (error) {
            view.webview.postMessage({ type: "error", message: String(error) });
          }
        });
      },
    }),
  );
};
exports.deactivate = () => {};

/** One streamed chat completion from DOWNCITY_BASE_URL; each content delta goes to the view as it arrives. */
async function send(webview, text) {
  hop("request/header");
  const response = await fetch(`${process.env.DOWNCITY_BASE_URL}/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${process.env.DOWNCITY_API_KEY || "sk-floor"}`,
    },
    body: JSON.stringify({
      model: process.env.DOWNCITY_MODEL,
      stream: true,
      messages: [{ role: "user", content: text }],
    }),
  });
  hop("llm response");
  const decoder = new TextDecoder();
  let buffered = "";
  let chunks = 0;
  for await (const chunk of response.body) {
    if (chunks++ === 0) hop("agent chunk");
    buffered += decoder.decode(chunk, { stream: true });
    const lines = buffered.split("\n");
    buffered = lines.pop();
    for (const line of lines) {
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      const delta = JSON.parse(line.slice(6)).choices?.[0]?.delta?.content;
      if (delta) {
        webview.postMessage({ type: "token", text: delta });
        hop("post draft");
      }
    }
  }
}

/** The server's models with the key, the key to SecretStorage, the model to the user settings. */
async function connect(context, { baseURL, model, key }) {
  const response = await fetch(`${baseURL}/models`, { headers: { authorization: `Bearer ${key}` } });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  await response.json();
  await context.secrets.store("floorChat.key", key);
  await vscode.workspace.getConfiguration("floorChat").update("model", model, vscode.ConfigurationTarget.Global);
}

function page(nonce, cspSource) {
  return `<!doctype html>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'unsafe-inline'; script-src 'nonce-${nonce}'">
<div id="log" role="log" aria-label="Conversation"></div>
<form id="connect"><input aria-label="Base URL" id="base"><input aria-label="Model" id="model"><input aria-label="API key" id="key" type="password"><button type="submit">Connect</button></form>
<textarea aria-label="Message" id="box"></textarea><button id="send" type="button">Send</button>
<script nonce="${nonce}">
  const vscode = acquireVsCodeApi();
  const log = document.getElementById("log");
  const box = document.getElementById("box");
  let answer;
  const sendIt = () => {
    vscode.postMessage({ type: "send", text: box.value });
    box.value = "";
    answer = log.appendChild(document.createElement("p"));
    answer.className = "answer";
  };
  box.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      sendIt();
    }
  });
  document.getElementById("send").addEventListener("click", sendIt);
  document.getElementById("connect").addEventListener("submit", (e) => {
    e.preventDefault();
    vscode.postMessage({ type: "connect", baseURL: document.getElementById("base").value, model: document.getElementById("model").value, key: document.getElementById("key").value });
  });
  window.addEventListener("message", (e) => {
    const m = e.data;
    if (m.type === "token") answer.textContent += m.text;
    if (m.type === "connected") document.getElementById("connect").remove();
    if (m.type === "error") log.appendChild(document.createElement("p")).textContent = m.message;
  });
</script>`;
}
