export { openaiChat } from "./openai-chat";
export { openaiResponses } from "./openai-responses";
export { anthropic } from "./anthropic";
export { error, streamError } from "./errors";
export type { WireScript } from "./script";
export { frames } from "./frames";
