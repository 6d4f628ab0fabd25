import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient, ApiError } from '../../src/client/api-client.js';

/**
 * The client's retries (issue 8): a 429 naming its Retry-After paces the call without using up its attempts;
 * a 503, or a 429 that names no wait, has five attempts. A small real HTTP server answers as a busy agora would:
 * `refusals` refusals first, then the record.
 */
const record = { id: 'c1', name: 'Kind', description: null, created_at: '2026-11-20T10:00:00.000Z', updated_at: '2026-11-20T10:00:00.000Z' };
let server: Server;
let base: string;
let refusals = 0;
let refusal: { status: number; headers: Record<string, string> } = { status: 429, headers: {} };
let requests = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    req.resume();
    if (refusals > 0) {
      refusals--;
      const error = { error: { code: refusal.status === 429 ? 'rate_limited' : 'unavailable', message: 'busy' } };
      res.writeHead(refusal.status, { 'content-type': 'application/json', ...refusal.headers }).end(JSON.stringify(error));
      return;
    }
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(record));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));
beforeEach(() => {
  requests = 0;
});

const waits: number[] = [];
const client = () => new ApiClient({ baseUrl: base, apiKey: 'k', apiSecret: 's', sleep: async (ms) => void waits.push(ms) });
const create = (c: ApiClient, key?: string) =>
  c.call('POST', '/page_configurations', { body: { name: 'Kind' }, ...(key ? { headers: { 'idempotency-key': key } } : {}) });

describe('retries', () => {
  it('waits out as many 429s with Retry-After as the server sends, each for the time it names', async () => {
    const c = client();
    refusal = { status: 429, headers: { 'retry-after': '2' } };
    refusals = 12;
    waits.length = 0;
    await expect(create(c, 'row-1')).resolves.toEqual(record);
    expect(requests).toBe(13);
    expect(waits).toEqual(Array(12).fill(2000));
    await c.close();
  });

  it('gives a 503, or a 429 without Retry-After, five attempts', async () => {
    const c = client();
    for (const headers of [{}, { 'retry-after': '1' }] as Record<string, string>[]) {
      refusal = { status: 503, headers };
      refusals = 12;
      requests = 0;
      const error = await create(c, 'row-2').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(503);
      expect(requests).toBe(5);
    }
    refusal = { status: 429, headers: {} };
    refusals = 12;
    requests = 0;
    expect(((await create(c, 'row-3').catch((e: unknown) => e)) as ApiError).status).toBe(429);
    expect(requests).toBe(5);
    refusals = 0;
    await c.close();
  });

  it('never repeats a POST without an Idempotency-Key', async () => {
    const c = client();
    refusal = { status: 429, headers: { 'retry-after': '1' } };
    refusals = 1;
    expect(((await create(c).catch((e: unknown) => e)) as ApiError).status).toBe(429);
    expect(requests).toBe(1);
    await c.close();
  });

  it('gives up on 429s once the waits they asked for reach five minutes', async () => {
    const c = client();
    refusal = { status: 429, headers: { 'retry-after': '60' } };
    refusals = 100;
    waits.length = 0;
    expect(((await create(c, 'row-4').catch((e: unknown) => e)) as ApiError).status).toBe(429);
    // Five waits of 60 s reach the bound; then the five attempts of any retryable answer.
    expect(waits.slice(0, 5)).toEqual(Array(5).fill(60_000));
    expect(requests).toBeLessThanOrEqual(10);
    refusals = 0;
    await c.close();
  });
});
