/**
 * The keys of the Sessions tree's rows that are not a session (a session's row is keyed by core/protocol's
 * `sessionKey`). Each key names one node object the tree keeps for the whole run: VS Code caches a row's handle by
 * its element, so a refresh hands back the same object for the same row (see DRAW_WAIT_MS in tree.ts). JSON keeps
 * any character of an agent id or a folder's name unambiguous.
 */

/** A date group (Today, Yesterday, a month…) of one agent's live sessions. */
export const dateGroupKey = (agentId: string, group: string): string => JSON.stringify(["date", agentId, group]);

/** A folder of the store that is not a session it can show (the "Damaged" group). */
export const damagedFolderKey = (d: { agentId: string; archived: boolean; folder: string }): string =>
  JSON.stringify(["damaged", d.archived ? "archived" : "sessions", d.agentId, d.folder]);
