// A session's readable transcript (`sessions show` / `export`): its own module so the CLI's store-only bundle uses it
// without the runtime (see esbuild.config.mjs). A runtime's `exportTranscript` renders the same.
export { eventMarkdown, renderTranscript, usageAfterCompactions, wholeHistory } from "../session/transcript";
