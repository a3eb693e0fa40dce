/**
 * An isolate's memory of values that expire: each entry lives until its own time, and the map
 * holds at most `capacity` entries, dropping the oldest insertion first (a Map iterates in
 * insertion order). The validation cache and the cache of manifests by digest are both this;
 * what may be remembered, and for how long, is their rule.
 */
export class ExpiringMap<T> {
  readonly #entries = new Map<string, { value: T; until: number }>();

  constructor(readonly capacity: number) {}

  /** The live value of `key` at `now` (ms), or null; an expired entry is dropped. */
  get(key: string, now: number): T | null {
    const hit = this.#entries.get(key);
    if (hit && hit.until > now) return hit.value;
    if (hit) this.#entries.delete(key);
    return null;
  }

  /** Remembers `value` until `until` (ms), as the newest entry. */
  set(key: string, value: T, until: number): void {
    this.#entries.delete(key);
    while (this.#entries.size >= this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { value, until });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
