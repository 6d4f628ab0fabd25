import type { Store } from '../store/store.js';

interface Entry {
  version: string;
  json: string;
  link?: string;
}

/**
 * An exact cache of serialized GET answers, per caller and URL. Every entry carries the store's data
 * version read before the answer was computed, and is used only while that version is still current: any
 * write anywhere (by this process or another on the same store) retires every entry. So it never answers
 * stale data; it only saves recomputing an answer to a read repeated while nothing changed.
 */
export class ResponseCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly store: Store,
    private readonly maxEntries = 500,
  ) {}

  /** The cached JSON, or a function that stores the JSON computed now. */
  lookup(callerId: string, url: string): { json: string; link?: string } | { remember(json: string, link?: string): void } | undefined {
    const version = this.store.dataVersion();
    if (version === undefined) return undefined;
    const key = `${callerId}\n${url}`;
    const hit = this.entries.get(key);
    if (hit && hit.version === version) return { json: hit.json, link: hit.link };
    return {
      remember: (json, link) => {
        if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
        this.entries.set(key, { version, json, link });
      },
    };
  }
}
