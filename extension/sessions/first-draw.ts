/**
 * How long the rest of the extension (extension/features.ts: the chat, the commands, the tools) waits at most for the
 * Sessions tree's first draw (issue 20). Both views open with one click, and the
 * chat's 440 KB script and the rest of the extension's modules competed with the tree's first row for the renderer's
 * and the extension host's one thread each.
 * FIRST_DRAW_ASK_MS: how long it waits for the workbench to ask for the tree's root at all (a collapsed or hidden
 * Sessions view never asks; what follows should then not wait the full bound).
 */
export const FIRST_DRAW_ASK_MS = 500;
export const FIRST_DRAW_MS = 2_000;
