import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlockedTargetError, postWebhook } from '../../src/server/webhook-post.js';

/** One webhook POST: the receiver's name resolved once, checked, and connected to as resolved, within the timeout. */
let receiver: Server;
let port: number;
const received: { host?: string; body: string }[] = [];
beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ host: req.headers.host, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((ok) => receiver.close(() => ok())));

describe('postWebhook', () => {
  it('connects to the address the name resolved to, once checked', async () => {
    const asked: string[] = [];
    const status = await postWebhook(`http://hooks.example.test:${port}/in`, { 'content-type': 'application/json' }, '{"n":1}', {
      timeoutMs: 5_000,
      allowPrivate: true,
      resolve: async (host) => (asked.push(host), [{ address: '127.0.0.1', family: 4 }]),
    });
    expect(status).toBe(204);
    expect(asked).toEqual(['hooks.example.test']);
    expect(received.at(-1)).toEqual({ host: `hooks.example.test:${port}`, body: '{"n":1}' });
  });

  it('refuses a name that resolves to a private address, without connecting', async () => {
    const before = received.length;
    await expect(
      postWebhook(`http://inside.example.test:${port}/in`, {}, '{}', {
        timeoutMs: 5_000,
        allowPrivate: false,
        resolve: async () => [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }],
      }),
    ).rejects.toBeInstanceOf(BlockedTargetError);
    expect(received.length).toBe(before);
  });

  it('gives up at its timeout when the name never resolves: the resolution is inside the timeout', async () => {
    const never = () => new Promise<{ address: string; family: number }[]>(() => {});
    await expect(
      postWebhook('http://stuck.example.test/in', {}, '{}', { timeoutMs: 100, allowPrivate: false, resolve: never }),
    ).rejects.toMatchObject({ name: 'TimeoutError' });
    // (A resolution left outside the timeout never ends: this test's own bound fails it soon.)
  }, 10_000);
});
