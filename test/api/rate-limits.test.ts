import { describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMIT, RateLimiter, rateLimitFromEnv } from '../../src/server/rate-limit.js';
import { testClock, useApp } from '../helpers/app.js';

/**
 * The request rate of each API key (docs/api.md): a token bucket on the server's clock. Here a small bucket
 * (5 requests, 2 a second) and a clock the test moves, so that draining and refilling are exact.
 */
const clock = testClock();
const api = useApp({ clock, rateLimit: { perSecond: 2, burst: 5 } });

describe('the request rate of an API key', () => {
  it('answers 429 rate_limited with Retry-After once the bucket is drained, for that key only', async () => {
    const member = await api.member(); // the Admin's first request of the bucket
    for (let i = 0; i < 4; i++) expect((await api.call('GET', '/me')).status).toBe(200);
    const limited = await api.call('GET', '/me');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.body).toEqual({
      error: {
        code: 'rate_limited',
        message: 'Too many requests for this API key (at most 2 a second, bursts of 5): retry in 1 s',
        request_id: limited.headers['x-request-id'],
      },
    });
    // Refused requests take no token: still refused, still 1 s away.
    expect((await api.call('GET', '/me')).headers['retry-after']).toBe('1');
    // Another key has a bucket of its own.
    expect((await api.call('GET', '/me', { as: member.creds })).status).toBe(200);
    clock.advance(60_000);
  });

  it('refills at its rate, up to the size of the bucket and no further', async () => {
    for (let i = 0; i < 5; i++) expect((await api.call('GET', '/users')).status).toBe(200);
    expect((await api.call('GET', '/users')).status).toBe(429);
    clock.advance(1_000); // two tokens back
    expect((await api.call('GET', '/users')).status).toBe(200);
    expect((await api.call('GET', '/users')).status).toBe(200);
    expect((await api.call('GET', '/users')).status).toBe(429);
    clock.advance(500); // one
    expect((await api.call('GET', '/users')).status).toBe(200);
    expect((await api.call('GET', '/users')).status).toBe(429);
    clock.advance(3_600_000); // an hour: a full bucket, not 7,200 tokens
    for (let i = 0; i < 5; i++) expect((await api.call('GET', '/users')).status).toBe(200);
    expect((await api.call('GET', '/users')).status).toBe(429);
    clock.advance(60_000);
  });

  it('says how long to wait when the rate is below one a second', () => {
    const slow = testClock();
    const limiter = new RateLimiter({ perSecond: 0.1, burst: 1 }, slow);
    expect(limiter.take('k')).toBeUndefined();
    expect(limiter.take('k')).toBe(10);
    slow.advance(4_000);
    expect(limiter.take('k')).toBe(6);
    slow.advance(6_000);
    expect(limiter.take('k')).toBeUndefined();
  });
});

describe('failed authentication, per client address (the documented defaults)', () => {
  const defaults = useApp({ clock: testClock() });

  it('refuses the 21st failure in a minute from one address with 429, not the requests of another address', async () => {
    const from = { remoteAddress: '203.0.113.40' };
    for (let i = 0; i < 20; i++) {
      const wrong = { key: `ak_guess_${i}`, secret: `as_guess_${'x'.repeat(20)}` };
      expect((await defaults.call('GET', '/me', { as: wrong, ...from })).status).toBe(401);
    }
    const refused = await defaults.call('GET', '/me', { as: { key: 'ak_guess_20', secret: 'as_guess_yyyyyyyyyyyyyyyyyyyy' }, ...from });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await defaults.call('GET', '/me', { remoteAddress: '198.51.100.40' })).status).toBe(200);
  });
});

describe('the default bucket', () => {
  it("is not met by an Admin's import at full speed, and holds back a script looping on the API", () => {
    const at = testClock();
    const limiter = new RateLimiter(DEFAULT_RATE_LIMIT, at);
    // An import of pages or follows (no password to hash) at 4,000 rows a second for a minute; users are
    // scrypt-bound, at most a few hundred a second.
    let refused = 0;
    for (let ms = 0; ms < 60_000; ms++) {
      for (let n = 0; n < 4; n++) if (limiter.take('admin') !== undefined) refused++;
      at.advance(1);
    }
    expect(refused).toBe(0);
    // A loop at 20,000 requests a second is refused once its burst is spent: after about 2/3 of a second.
    let accepted = 0;
    for (let ms = 0; ms < 2_000; ms++) {
      for (let n = 0; n < 20; n++) if (limiter.take('runaway') === undefined) accepted++;
      at.advance(1);
    }
    expect(accepted).toBeGreaterThanOrEqual(DEFAULT_RATE_LIMIT.burst + 2 * DEFAULT_RATE_LIMIT.perSecond - 20);
    expect(accepted).toBeLessThanOrEqual(DEFAULT_RATE_LIMIT.burst + 2 * DEFAULT_RATE_LIMIT.perSecond + 20);
  });
});

describe('the rate set in the environment', () => {
  it('takes AGORA_RATE_LIMIT and AGORA_RATE_LIMIT_BURST; a rate set alone gets a bucket of two seconds of it', () => {
    expect(rateLimitFromEnv({})).toEqual(DEFAULT_RATE_LIMIT);
    expect(rateLimitFromEnv({ AGORA_RATE_LIMIT: '5' })).toEqual({ perSecond: 5, burst: 10 });
    expect(rateLimitFromEnv({ AGORA_RATE_LIMIT: '0.2' })).toEqual({ perSecond: 0.2, burst: 1 });
    expect(rateLimitFromEnv({ AGORA_RATE_LIMIT: '5', AGORA_RATE_LIMIT_BURST: '50' })).toEqual({ perSecond: 5, burst: 50 });
    expect(rateLimitFromEnv({ AGORA_RATE_LIMIT_BURST: '50' })).toEqual({ perSecond: DEFAULT_RATE_LIMIT.perSecond, burst: 50 });
    expect(rateLimitFromEnv({ AGORA_RATE_LIMIT: '0' })).toBe(false);
    expect(() => rateLimitFromEnv({ AGORA_RATE_LIMIT: 'fast' })).toThrow('AGORA_RATE_LIMIT must be a number of requests, 0 or more');
  });
});
