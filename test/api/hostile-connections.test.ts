import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { PREFIX, removeDir } from '../helpers/server.js';

/** docs/security.md over raw sockets against the app listening on a real port: what a client without credentials can hold. */

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await startApp({ connections: { bodyTimeoutMs: 400, unauthenticatedPerAddress: 3 } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

/** A connection from `from` (a loopback address of its own, so that tests do not share a count), read as it comes. */
async function open(from: string) {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  await new Promise<void>((ok, fail) => socket.once('connect', ok).once('error', fail));
  let text = '';
  socket.on('data', (chunk) => (text += chunk));
  socket.on('error', () => {});
  const closed = new Promise<number>((ok) => socket.once('close', () => ok(Date.now())));
  return {
    socket,
    closed,
    text: () => text,
    /** The next whole answer (head and a Content-Length body), parsed. */
    async answer(timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const end = text.indexOf('\r\n\r\n');
        if (end !== -1) {
          const head = text.slice(0, end);
          const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
          if (text.length >= end + 4 + length) {
            const body = text.slice(end + 4, end + 4 + length);
            text = text.slice(end + 4 + length);
            return { status: Number(head.split(' ')[1]), head: head.toLowerCase(), body: JSON.parse(body) };
          }
        }
        if (Date.now() > deadline) throw new Error(`no answer in time: ${JSON.stringify(text.slice(0, 200))}`);
        await new Promise((ok) => setTimeout(ok, 10));
      }
    },
  };
}

const within = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([promise, new Promise<never>((_, fail) => setTimeout(() => fail(new Error(`${what}: not within ${ms} ms`)), ms))]);

const post = (headers: string, length: number) =>
  `POST ${PREFIX}/page_configurations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${headers}\r\n`;
const auth = () => `Api-Key: ${t.admin.key}\r\nApi-Secret: ${t.admin.secret}\r\n`;
const get = (headers = auth()) => `GET ${PREFIX}/me HTTP/1.1\r\nHost: x\r\n${headers}\r\n`;

describe('a request without valid credentials', () => {
  it('is answered 401 at once, without its body being read, and its connection closed', async () => {
    const client = await open('127.0.0.11');
    // A gigabyte announced, ten bytes sent: the answer cannot wait for the rest.
    client.socket.write(post('', 1_000_000_000) + '{"name":"x');
    const answer = await client.answer();
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('unauthorized');
    expect(answer.head).toContain('connection: close');
    await within(client.closed, 2000, 'the connection closed');
  });

  it('that expects 100-continue is answered 401 without being asked for its body; with credentials it is asked, then read', async () => {
    const stranger = await open('127.0.0.14');
    stranger.socket.write(post('Expect: 100-continue\r\n', 5_000_000));
    const refused = await stranger.answer();
    expect(refused.status).toBe(401);
    expect(stranger.text()).toBe('');
    await within(stranger.closed, 2000, 'the connection closed');
    const known = await open('127.0.0.15');
    const body = '{"name":"Continued"}';
    known.socket.write(post(`${auth()}Expect: 100-continue\r\n`, body.length));
    const asked = Date.now() + 2000;
    while (!known.text().includes('\r\n\r\n') && Date.now() < asked) await new Promise((ok) => setTimeout(ok, 10));
    expect(known.text()).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n$/);
    known.socket.write(body);
    await within(
      (async () => {
        while (!/\r\n\r\n[^]*\r\n\r\n/.test(known.text())) await new Promise((ok) => setTimeout(ok, 10));
      })(),
      2000,
      'the answer after the body',
    );
    expect(known.text().split('\r\n\r\n')[1]).toMatch(/^HTTP\/1\.1 201 /);
    known.socket.destroy();
    // Let in, but with a body that would not be read (too large, of a kind the API does not read): answered at once,
    // never asked for.
    const refusedBodies: [string, number][] = [
      [post(`${auth()}Expect: 100-continue\r\n`, 5_000_000), 413],
      [post(`${auth()}Expect: 100-continue\r\n`, 10).replace('application/json', 'text/plain'), 415],
    ];
    for (const [request, status] of refusedBodies) {
      const client = await open('127.0.0.16');
      client.socket.write(request);
      const answer = await client.answer();
      expect(answer.status, request).toBe(status);
      expect(client.text(), 'no 100 Continue before it').toBe('');
      client.socket.destroy();
    }
  });

  it('closes its connection even when it has no body (wrong secret)', async () => {
    const client = await open('127.0.0.12');
    client.socket.write(get(`Api-Key: ${t.admin.key}\r\nApi-Secret: not-the-secret\r\n`));
    expect((await client.answer()).status).toBe(401);
    await within(client.closed, 2000, 'the connection closed');
  });
});

describe('a request body', () => {
  it('that does not arrive whole within the deadline is answered 408 and its connection closed', async () => {
    const client = await open('127.0.0.13');
    const started = Date.now();
    client.socket.write(post(auth(), 100) + '{"name":');
    // A byte now and then does not keep it alive.
    const drip = setInterval(() => client.socket.writable && client.socket.write(' '), 100);
    try {
      const answer = await client.answer();
      expect(answer.status).toBe(408);
      expect(answer.body.error.code).toBe('request_timeout');
      expect(Date.now() - started).toBeGreaterThanOrEqual(350);
      expect(answer.head).toContain('connection: close');
      await within(client.closed, 2000, 'the connection closed');
    } finally {
      clearInterval(drip);
    }
  });

  it('that arrives in time is read, and its keep-alive connection stays open', async () => {
    const client = await open('127.0.0.14');
    const body = '{"name":"On time"}';
    client.socket.write(post(auth(), body.length) + body.slice(0, 5));
    await new Promise((ok) => setTimeout(ok, 150));
    client.socket.write(body.slice(5));
    expect((await client.answer()).status).toBe(201);
    client.socket.write(get());
    expect((await client.answer()).status).toBe(200);
    client.socket.destroy();
  });
});

describe('connections one address holds before authenticating', () => {
  it('are bounded: one more is answered 429 and closed, other addresses and authenticated connections are not held back', async () => {
    const idle = [await open('127.0.0.15'), await open('127.0.0.15'), await open('127.0.0.15')];
    const refused = await open('127.0.0.15');
    const answer = await refused.answer();
    expect(answer.status).toBe(429);
    expect(answer.body.error.code).toBe('too_many_connections');
    expect(answer.head).toMatch(/retry-after: \d+/);
    await within(refused.closed, 2000, 'the refused connection closed');
    // Another address is not counted with it.
    const other = await open('127.0.0.16');
    other.socket.write(get());
    expect((await other.answer()).status).toBe(200);
    // A connection that authenticates no longer counts: a new one is let in.
    idle[0]!.socket.write(get());
    expect((await idle[0]!.answer()).status).toBe(200);
    const next = await open('127.0.0.15');
    next.socket.write(get());
    expect((await next.answer()).status).toBe(200);
    // One that closes frees its place too.
    idle[1]!.socket.destroy();
    await idle[1]!.closed;
    await new Promise((ok) => setTimeout(ok, 50));
    const after = await open('127.0.0.15');
    after.socket.write(get());
    expect((await after.answer()).status).toBe(200);
    for (const c of [...idle, other, next, after]) c.socket.destroy();
  });
});
