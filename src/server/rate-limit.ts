import { AppError, ErrorCode } from '../shared/errors.js';

export interface RateLimitSettings {
  /** Tokens added per second: the sustained request rate of one API key. */
  perSecond: number;
  /** The bucket's size: how many requests a key may send at once after a quiet spell. */
  burst: number;
}

/**
 * Generous: an Admin's bulk import at full speed (scrypt-bound, a few hundred users a second here; pages and
 * follows a few thousand) stays under it, while a runaway script looping on the API is held back.
 */
export const DEFAULT_RATE_LIMIT: RateLimitSettings = { perSecond: 5000, burst: 10_000 };

/** The most buckets kept: beyond it the oldest are dropped (a dropped key starts again with a full bucket). */
const MAX_BUCKETS = 100_000;

/** A token bucket per API key, on the server's clock (so tests with a fixed clock see no refill). */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly clock: () => Date,
  ) {}

  /** Takes one token for this key: undefined when there was one, else the seconds until one is back. */
  take(key: string): number | undefined {
    const now = this.clock().getTime();
    const { perSecond, burst } = this.settings;
    const bucket = this.buckets.get(key) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    // Most recently used last, so that the first is the one to drop when there are too many.
    this.buckets.delete(key);
    if (this.buckets.size >= MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
  }

  describe(retryAfter: number): AppError {
    const { perSecond, burst } = this.settings;
    return new AppError(
      429,
      ErrorCode.rateLimited,
      `Too many requests for this API key (at most ${perSecond} a second, bursts of ${burst}): retry in ${retryAfter} s`,
    );
  }
}

/** AGORA_RATE_LIMIT (requests a second per key, 0 turns it off) and AGORA_RATE_LIMIT_BURST. */
export function rateLimitFromEnv(env: NodeJS.ProcessEnv): RateLimitSettings | false {
  const read = (name: string, fallback: number) => {
    const value = env[name];
    if (value === undefined || value === '') return fallback;
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number of requests, 0 or more`);
    return n;
  };
  const perSecond = read('AGORA_RATE_LIMIT', DEFAULT_RATE_LIMIT.perSecond);
  if (perSecond === 0) return false;
  // A rate given alone gets a bucket of two seconds of it, as the default does (a rate of 5 a second with the
  // default bucket of 10,000 would let a key send 10,000 at once).
  const ratio = DEFAULT_RATE_LIMIT.burst / DEFAULT_RATE_LIMIT.perSecond;
  const burst = read('AGORA_RATE_LIMIT_BURST', env.AGORA_RATE_LIMIT ? Math.ceil(perSecond * ratio) : DEFAULT_RATE_LIMIT.burst);
  return { perSecond, burst: Math.max(1, burst) };
}
