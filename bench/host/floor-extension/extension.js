// The floor: a tree view with two rows and a webview view with one line of HTML, each
// ready at once. What VS Code itself takes to show a view container's tree is measured
// against this (bench/host/tree-scale.ts).
const vscode = require("vscode");
const { appendFileSync } = require("node:fs");

// The same hop marks as Downcity's (core/util/hop-trace.ts) when the bench traces: its timeline beside ours.
const hop = (name) =>
  process.env.DOWNCITY_HOP_TRACE &&
  appendFileSync(
    process.env.DOWNCITY_HOP_TRACE,
    `${JSON.stringify({ hop: name, t: performance.timeOrigin + performance.now() })}\n`,
  );
hop("bundle loading");

const ROWS = ["Floor session 1", "Floor session 2"];

exports.activate = (context) => {
  hop("activate");
  context.subscriptions.push(
    vscode.window.registerTreeDataProvider("floor.sessions", {
      getChildren: (node) => (hop(`tree asked ${node ? "row" : "root"}`), node ? [] : ROWS),
      getTreeItem: (label) => new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None),
    }),
    vscode.window.registerWebviewViewProvider("floor.chat", {
      resolveWebviewView(view) {
        view.webview.html =
          '<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src \'none\'"><p>Floor chat</p>';
      },
    }),
  );
};
exports.deactivate = () => {};
