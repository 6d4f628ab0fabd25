import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { PREFIX, removeDir, type Credentials } from '../helpers/server.js';

/**
 * docs/security.md, over raw sockets against the app listening on a real port: what one user can hold once their
 * requests authenticate. Before, an authenticated connection counted against nothing: one Member with one key held
 * thousands of idle keep-alive connections (72 s each), enough to take every descriptor of the process.
 */

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await startApp({ connections: { perUser: 3 } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

/** A keep-alive connection from `from` that asks `GET /me` as `as`, and its first answer. */
async function held(from: string, as: Credentials) {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  await new Promise<void>((ok, fail) => socket.once('connect', ok).once('error', fail));
  let text = '';
  socket.on('data', (chunk) => (text += chunk));
  socket.on('error', () => {});
  const closed = new Promise<void>((ok) => socket.once('close', () => ok()));
  socket.write(`GET ${PREFIX}/me HTTP/1.1\r\nHost: x\r\nApi-Key: ${as.key}\r\nApi-Secret: ${as.secret}\r\n\r\n`);
  const deadline = Date.now() + 3000;
  while (!/\r\n\r\n[\s\S]*\}$/.test(text)) {
    if (Date.now() > deadline) throw new Error(`no answer in time: ${JSON.stringify(text.slice(0, 200))}`);
    await new Promise((ok) => setTimeout(ok, 10));
  }
  const [head, body] = text.split('\r\n\r\n') as [string, string];
  return { socket, closed, status: Number(head.split(' ')[1]), head: head.toLowerCase(), body: JSON.parse(body) };
}

const within = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([promise, new Promise<never>((_, fail) => setTimeout(() => fail(new Error(`${what}: not within ${ms} ms`)), ms))]);

describe('connections one user holds once authenticated', () => {
  it('are bounded: one more is answered 429 and closed; other users are not held back; a closed one frees its place', async () => {
    const mallory = await t.member();
    // From several addresses: the bound is the user's, not an address's.
    const kept = [await held('127.0.0.41', mallory.creds), await held('127.0.0.42', mallory.creds), await held('127.0.0.43', mallory.creds)];
    expect(kept.map((c) => c.status)).toEqual([200, 200, 200]);
    const refused = await held('127.0.0.44', mallory.creds);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('too_many_connections');
    expect(refused.head).toContain('retry-after: ');
    expect(refused.head).toContain('connection: close');
    await within(refused.closed, 3000, 'the refused connection closed');
    // Another user, from the same address, is let in.
    const other = await t.member();
    const theirs = await held('127.0.0.44', other.creds);
    expect(theirs.status).toBe(200);
    theirs.socket.destroy();
    // One of the user's connections closed: its place is free again.
    kept[0]!.socket.destroy();
    await kept[0]!.closed;
    await new Promise((ok) => setTimeout(ok, 50));
    const again = await held('127.0.0.45', mallory.creds);
    expect(again.status).toBe(200);
    for (const c of [...kept, again]) c.socket.destroy();
  });

  it("counts a connection against the first user on it: another's request on it (a proxy's pool) is never refused", async () => {
    const [busy, first] = [await t.member(), await t.member()];
    const kept = [await held('127.0.0.51', busy.creds), await held('127.0.0.52', busy.creds), await held('127.0.0.53', busy.creds)];
    expect(kept.map((c) => c.status)).toEqual([200, 200, 200]);
    // A connection first used by another user, then by the one who holds all they may: answered, kept open.
    const pooled = await held('127.0.0.54', first.creds);
    const answers: string[] = [];
    pooled.socket.on('data', (chunk) => answers.push(String(chunk)));
    pooled.socket.write(`GET ${PREFIX}/me HTTP/1.1\r\nHost: x\r\nApi-Key: ${busy.creds.key}\r\nApi-Secret: ${busy.creds.secret}\r\n\r\n`);
    const deadline = Date.now() + 3000;
    while (!/^HTTP\/1\.1 \d{3}/.test(answers.join('')) && Date.now() < deadline) await new Promise((ok) => setTimeout(ok, 10));
    expect(answers.join('')).toMatch(/^HTTP\/1\.1 200/);
    // It stays the first user's: a new connection of the busy user's is still one too many.
    expect((await held('127.0.0.55', busy.creds)).status).toBe(429);
    for (const c of [...kept, pooled]) c.socket.destroy();
  });

  it('a request again on a connection the user holds is no new connection', async () => {
    const ada = await t.member();
    const first = await held('127.0.0.46', ada.creds);
    const answers: string[] = [];
    first.socket.on('data', (chunk) => answers.push(String(chunk)));
    for (let i = 0; i < 5; i++) first.socket.write(`GET ${PREFIX}/me HTTP/1.1\r\nHost: x\r\nApi-Key: ${ada.creds.key}\r\nApi-Secret: ${ada.creds.secret}\r\n\r\n`);
    const deadline = Date.now() + 3000;
    while (answers.join('').split('HTTP/1.1 200').length - 1 < 5 && Date.now() < deadline) await new Promise((ok) => setTimeout(ok, 10));
    expect(answers.join('').split('HTTP/1.1 200').length - 1).toBe(5);
    first.socket.destroy();
  });
});
