/**
 * The core query as the extension uses it (issue 23, /work/briefs/search-api.md): until
 * core/runtime exports it, its published shape. Only this file changes when it lands.
 */
export interface SearchOptions {
  query: string;
  regex?: boolean;
  word?: boolean;
  caseSensitive?: boolean;
  reasoning?: boolean;
  agentId?: string;
  area?: "sessions" | "archived" | "all";
  session?: { agentId: string; sessionId: string };
  limit?: number;
  perSession?: number;
  signal?: AbortSignal;
}

export interface SearchHit {
  agentId: string;
  sessionId: string;
  archived: boolean;
  title: string | undefined;
  seq: number;
  kind: "user" | "assistant" | "tool" | "title";
  part: "text" | "reasoning" | "tool-call" | "tool-result" | "title";
  time: number;
  snippet: string;
  ranges: Array<[start: number, end: number]>;
  location: "context" | "folded" | "closed" | "draft";
  inContext: boolean;
  beforeSequence?: number;
}

/** A folder runtime that can search (every runtime, once the core query lands). */
export interface Searchable {
  search(options: SearchOptions): AsyncIterable<SearchHit>;
}

export function canSearch(runtime: object): runtime is Searchable {
  return typeof (runtime as Partial<Searchable>).search === "function";
}
