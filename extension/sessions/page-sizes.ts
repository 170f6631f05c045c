/** Sessions a group shows before its "Show more" row, and how many more each click adds. */
export const PAGE_SIZE = 50;
/** The first page of each agent read before the full list: a page of the group open at first (Today, or else Yesterday), and one to tell "Show more". */
export const FIRST_ROWS = PAGE_SIZE + 1;
/** Each agent's newest archived sessions in the first rows: a page of the Archived group, and one to tell "Show more". */
export const FIRST_ARCHIVED = PAGE_SIZE + 1;

/**
 * The first pages a folder's tree draws before its full list, as the store is asked for them (on the host's thread
 * or off it): each agent's newest live sessions, then its newest archived ones, each log's existence checked.
 */
export const FIRST_PAGES = [
  { verifyLogs: true, limit: FIRST_ROWS },
  { archived: true, verifyLogs: true, limit: FIRST_ARCHIVED },
] as const;
