import type { ChatPage, SessionRef } from "../../core/protocol";
import type { ChatFolder } from "./folders";

/**
 * The history pages from `beforeSeq` back to the one that holds `seq`, newest first: what
 * "Load earlier" would load click by click, in one round trip. Each page is one segment
 * (DESIGN §4), so the cost is the segments between, never the whole history.
 */
export async function pagesThrough(
  folder: ChatFolder,
  ref: SessionRef,
  beforeSeq: number,
  seq: number,
): Promise<ChatPage[]> {
  const pages: ChatPage[] = [];
  const core = { agentId: ref.agentId, sessionId: ref.sessionId };
  for (let before = beforeSeq; before > seq;) {
    const page = await folder.runtime.messages(core, { beforeSequence: before });
    // A page that does not move back (nothing older) ends the walk.
    if (page.events.length === 0 && page.firstSeq >= before) break;
    pages.push({
      events: page.events,
      firstSeq: page.firstSeq,
      lastSeq: page.lastSeq,
      ...(page.summary !== undefined ? { summary: page.summary } : {}),
      hasOlder: page.hasOlder,
    });
    if (!page.hasOlder || page.firstSeq >= before) break;
    before = page.firstSeq;
  }
  return pages;
}
