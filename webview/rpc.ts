import {
  ChatHostMessage,
  type ChatHostEvent,
  type ChatMethod,
  type ChatParams,
  type ChatResult,
  ChatMethods,
} from "../core/protocol";

export interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

interface Waiter {
  method: ChatMethod;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * The webview's end of the RPC. Everything the host posts is parsed before use: a
 * malformed message is counted and dropped, never rendered.
 */
export class RpcClient {
  private next = 1;
  private readonly waiting = new Map<number, Waiter>();
  dropped = 0;

  constructor(
    private readonly api: VsCodeApi,
    private readonly onEvent: (event: ChatHostEvent) => void,
  ) {
    window.addEventListener("message", (e: MessageEvent) => this.receive(e.data));
  }

  request<M extends ChatMethod>(method: M, params: ChatParams<M>): Promise<ChatResult<M>> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { method, resolve: resolve as (v: unknown) => void, reject });
      this.api.postMessage({ kind: "request", id, method, params });
    });
  }

  private receive(raw: unknown): void {
    const parsed = ChatHostMessage.safeParse(raw);
    if (!parsed.success) {
      this.dropped++;
      return;
    }
    const message = parsed.data;
    if (message.kind === "event") {
      try {
        this.onEvent(message.event);
      } catch (error) {
        // One bad event must not stop the ones after it.
        console.error("chat: event failed", error);
      }
      return;
    }
    if (message.id === null) return;
    const waiter = this.waiting.get(message.id);
    if (!waiter) return;
    this.waiting.delete(message.id);
    if ("error" in message) {
      waiter.reject(new Error(message.error.message));
      return;
    }
    const result = ChatMethods[waiter.method].result.safeParse(message.result);
    if (result.success) waiter.resolve(result.data);
    else waiter.reject(new Error(`malformed ${waiter.method} result`));
  }
}
