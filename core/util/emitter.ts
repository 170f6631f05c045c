/** A minimal typed event emitter. Listeners run synchronously in registration order. */
export type Unsubscribe = () => void;

export class Emitter<Events extends Record<string, unknown[]>> {
  private readonly listeners = new Map<keyof Events, Set<(...args: never[]) => unknown>>();

  on<K extends keyof Events>(name: K, listener: (...args: Events[K]) => unknown): Unsubscribe {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(listener as (...args: never[]) => unknown);
    return () => set.delete(listener as (...args: never[]) => unknown);
  }

  emit<K extends keyof Events>(name: K, ...args: Events[K]): void {
    const set = this.listeners.get(name);
    if (!set) return;
    for (const listener of [...set]) (listener as (...a: Events[K]) => unknown)(...args);
  }

  /** Calls every listener and waits for all of them; rejects with the first failure. */
  async emitAsync<K extends keyof Events>(name: K, ...args: Events[K]): Promise<void> {
    const set = this.listeners.get(name);
    if (!set) return;
    await Promise.all([...set].map((listener) => (listener as (...a: Events[K]) => unknown)(...args)));
  }
}
