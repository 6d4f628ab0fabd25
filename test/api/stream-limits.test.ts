import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { PREFIX, removeDir, type Credentials } from '../helpers/server.js';

/** docs/security.md: live streams per user (8) and per process (AGORA_MAX_STREAMS), over a real socket. */

let t: TestApp;
let base: string;
/** The reads a stream's opening makes (its user, the number of their last notification; not a held stream's reads). */
const OPENING_READS = /from "users"|select "seq" from "notifications"/;
let openingReads = 0;
const logged: Record<string, any>[] = [];
beforeAll(async () => {
  t = await startApp({
    live: { max: 12, heartbeatMs: 60_000 },
    logStream: { write: (line) => void logged.push(JSON.parse(line)) },
    storeOptions: { onQuery: (sql: string) => void (OPENING_READS.test(sql) && openingReads++) },
  });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

/**
 * The streams held open: each with its response, which must stay referenced. fetch (undici) cancels the body of a
 * response that is garbage-collected, so a stream whose response was dropped closes at the next collection (on a
 * busy machine, in the middle of a test).
 */
const opened: { controller: AbortController; res: Response }[] = [];

/** Opens a stream of `userId` and leaves it open (only its head read); answers its status. */
async function open(userId: string, creds: Credentials): Promise<number> {
  const controller = new AbortController();
  const res = await fetch(`${base}${PREFIX}/users/${userId}/notifications/stream`, {
    headers: { 'api-key': creds.key, 'api-secret': creds.secret },
    signal: controller.signal,
  });
  if (res.status === 200) opened.push({ controller, res });
  else await res.text();
  return res.status;
}

/** A stream the server refuses: its status, Retry-After and error body. */
async function refused(userId: string, creds: Credentials) {
  const res = await fetch(`${base}${PREFIX}/users/${userId}/notifications/stream`, { headers: { 'api-key': creds.key, 'api-secret': creds.secret } });
  // Let in after all: its body never ends, so it is closed here and the caller's expectations say what came.
  if (res.status === 200) await res.body?.cancel();
  const body = res.status === 200 ? { error: { code: 'none: a stream was opened', request_id: '' } } : ((await res.json()) as { error: { code: string; request_id: string } });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body };
}

const closeAll = async () => {
  for (const { controller } of opened.splice(0)) controller.abort();
  // The server sees each close on its own turn.
  await new Promise((ok) => setTimeout(ok, 200));
};

describe('live streams', () => {
  it('are at most 8 open at once per user: the 9th is a 429 too_many_streams with Retry-After, others are not held back', async () => {
    const ada = await t.member();
    const bob = await t.member();
    for (let i = 0; i < 8; i++) expect(await open(ada.user.id, ada.creds)).toBe(200);
    openingReads = 0;
    const ninth = await refused(ada.user.id, ada.creds);
    // Refused before anything is read for it: a client asking again and again costs no query.
    expect(openingReads).toBe(0);
    expect(ninth.status).toBe(429);
    expect(ninth.body.error.code).toBe('too_many_streams');
    expect(Number(ninth.retryAfter)).toBeGreaterThan(0);
    expect(await open(bob.user.id, bob.creds)).toBe(200);
    // One closed frees a place.
    opened.shift()!.controller.abort();
    await new Promise((ok) => setTimeout(ok, 200));
    expect(await open(ada.user.id, ada.creds)).toBe(200);
    await closeAll();
  });

  it('are at most AGORA_MAX_STREAMS per process: beyond, a 503 with Retry-After', async () => {
    const users = await Promise.all([t.member(), t.member()]);
    for (const { user, creds } of users) for (let i = 0; i < 6; i++) expect(await open(user.id, creds)).toBe(200);
    const carol = await t.member();
    const beyond = await refused(carol.user.id, carol.creds);
    expect(beyond.status).toBe(503);
    expect(beyond.body.error.code).toBe('server_busy');
    expect(Number(beyond.retryAfter)).toBeGreaterThan(0);
    // The server protecting itself, not a fault: a warning naming the request and what was busy, no stack.
    const said = logged.filter((line) => line.reqId === beyond.body.error.request_id);
    expect(said).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'server busy on GET /public-api/v1/users/:user_id/notifications/stream: The server holds as many live streams as it can: retry later',
      }),
    ]);
    expect(Object.keys(said[0]!)).not.toContain('err');
    await closeAll();
    expect(await open(carol.user.id, carol.creds)).toBe(200);
    await closeAll();
  });

  it('HEAD answers the head a stream would have, and ends, holding no place', async () => {
    const eve = await t.member();
    // Node sends a HEAD answer's head only when it ends: a stream opened for it said nothing, ever, and held a place.
    for (let i = 0; i < 9; i++) {
      const res = await fetch(`${base}${PREFIX}/users/${eve.user.id}/notifications/stream`, {
        method: 'HEAD',
        headers: { 'api-key': eve.creds.key, 'api-secret': eve.creds.secret },
        signal: AbortSignal.timeout(5000),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    }
    for (let i = 0; i < 8; i++) expect(await open(eve.user.id, eve.creds)).toBe(200);
    await closeAll();
  });

  it('a client that leaves while its stream is being opened leaves no place taken', async () => {
    const dan = await t.member();
    const { hostname, port } = new URL(base);
    // Each asks and hangs up at once: the server is still checking who asks when the connection goes.
    await Promise.all(
      Array.from({ length: 20 }, () =>
        new Promise<void>((done) => {
          const socket = connect({ host: hostname, port: Number(port) }, () => {
            socket.write(
              `GET ${PREFIX}/users/${dan.user.id}/notifications/stream HTTP/1.1\r\nHost: x\r\n` +
                `Api-Key: ${dan.creds.key}\r\nApi-Secret: ${dan.creds.secret}\r\n\r\n`,
              () => socket.destroy(),
            );
          });
          socket.on('close', () => done());
        }),
      ),
    );
    await new Promise((ok) => setTimeout(ok, 500));
    for (let i = 0; i < 8; i++) expect(await open(dan.user.id, dan.creds)).toBe(200);
    await closeAll();
  });
});
