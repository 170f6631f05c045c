// The floor: a tree view with two rows and a webview view with one line of HTML, each
// ready at once. What VS Code itself takes to show a view container's tree is measured
// against this (bench/host/tree-scale.ts).
const vscode = require("vscode");

const ROWS = ["Floor session 1", "Floor session 2"];

exports.activate = (context) => {
  context.subscriptions.push(
    vscode.window.registerTreeDataProvider("floor.sessions", {
      getChildren: (node) => (node ? [] : ROWS),
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
