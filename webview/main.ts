import "./csp-safe-zod";
import { ChatApp } from "./app";
import { listStats } from "./list";
import { markdownStats } from "./markdown";
import { findStats } from "./find-controller";
import type { VsCodeApi } from "./rpc";

declare function acquireVsCodeApi(): VsCodeApi;

const root = document.getElementById("app")!;
const app = new ChatApp(root, acquireVsCodeApi());
void app.start();
// For the browser tests and the benchmark: read-only counters, no control.
(window as unknown as { __downcityChat?: unknown }).__downcityChat = app;
(window as unknown as { __downcityStats?: unknown }).__downcityStats = Object.assign(listStats, {
  markdown: markdownStats,
  find: findStats,
});
