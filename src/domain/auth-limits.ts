import { rateLimited } from '../shared/errors.js';

/**
 * Failed authentications counted per client address, or per API key and address, in fixed windows. Past the limit the
 * request is refused (429 with `Retry-After`) before any scrypt is spent on it. Checks still running count as failures
 * until they end (`begin`, `end`), so that guesses sent all at once are held to the limit too, not only those after
 * them: always (`running: 'always'`: a key's secrets from an address, of which a client has one), or only once the
 * key has failed in the window (`'once failed'`: an address, from which many users' first calls may come at once).
 */
export class FailureLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private readonly running = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly counting: 'always' | 'once failed',
    private readonly maxEntries = 50_000,
  ) {}

  /** Failures counted for `key` in the current window. */
  count(key: string, now: number): number {
    const entry = this.windows.get(key);
    return entry && now - entry.start < this.windowMs ? entry.count : 0;
  }

  /** Seconds until `key` may try again, or 0 when it may now (1 s while its running checks alone fill the limit). */
  retryAfter(key: string, now: number): number {
    const entry = this.windows.get(key);
    const counted = this.count(key, now);
    const running = this.counting === 'always' || counted > 0 ? (this.running.get(key) ?? 0) : 0;
    if (counted + running < this.limit) return 0;
    return counted >= this.limit && entry ? (entry.start + this.windowMs - now) / 1000 : 1;
  }

  /** A check for `key` has begun: it counts against the limit until `end`. */
  begin(key: string): void {
    this.running.set(key, (this.running.get(key) ?? 0) + 1);
  }

  end(key: string): void {
    const left = (this.running.get(key) ?? 1) - 1;
    if (left > 0) this.running.set(key, left);
    else this.running.delete(key);
  }

  fail(key: string, now: number): void {
    const entry = this.windows.get(key);
    if (entry && now - entry.start < this.windowMs) {
      entry.count += 1;
      return;
    }
    this.windows.delete(key);
    // Bounded: a flood of distinct keys or addresses forgets the oldest windows first.
    if (this.windows.size >= this.maxEntries) {
      for (const [k, e] of this.windows) if (now - e.start >= this.windowMs) this.windows.delete(k);
      if (this.windows.size >= this.maxEntries) this.windows.delete(this.windows.keys().next().value!);
    }
    this.windows.set(key, { start: now, count: 1 });
  }

  forget(key: string): void {
    this.windows.delete(key);
  }
}

interface Waiter {
  suspect: boolean;
  start: () => void;
  refuse: (error: Error) => void;
}

/**
 * A bounded queue in front of scrypt (which costs tens of milliseconds of a thread each): at most
 * `concurrency` checks run at once and `maxWaiting` wait. Checks from an address, or a key from an address, that already failed
 * ("suspect") wait behind the others, and are the first refused when the queue is full, so that a flood of
 * wrong secrets cannot delay the verification of a valid key.
 */
export class VerificationQueue {
  private running = 0;
  private readonly clean: Waiter[] = [];
  private readonly suspects: Waiter[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  get waiting(): number {
    return this.clean.length + this.suspects.length;
  }

  async run<T>(suspect: boolean, check: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency || this.waiting > 0) await this.enqueue(suspect);
    else this.running += 1;
    try {
      return await check();
    } finally {
      this.running -= 1;
      this.next();
    }
  }

  private enqueue(suspect: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { suspect, start: resolve, refuse: reject };
      if (this.waiting >= this.maxWaiting) {
        // Full: a suspect newcomer is refused; a clean one takes the place of the newest suspect, if any.
        const evicted = suspect ? undefined : this.suspects.pop();
        if (!evicted) return reject(busy());
        evicted.refuse(busy());
      }
      (suspect ? this.suspects : this.clean).push(waiter);
    });
  }

  private next(): void {
    const waiter = this.clean.shift() ?? this.suspects.shift();
    if (!waiter) return;
    this.running += 1;
    waiter.start();
  }
}

const busy = () => rateLimited('The server is busy checking credentials: retry in a second', 1);
