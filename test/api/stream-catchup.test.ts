import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { newId } from '../../src/shared/ids.js';
import { notifyMadeUp, startApp, type TestApp } from '../helpers/app.js';
import { PREFIX, removeDir } from '../helpers/server.js';

const MAX_BUFFERED = 256 * 1024;
let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await startApp({ live: { heartbeatMs: 60_000, maxBuffered: MAX_BUFFERED } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

/**
 * A client resuming from far behind (Last-Event-ID 000…0, thousands of notifications) and reading at an ordinary
 * pace gets them all over one stream. The backlog used to be written all at once into the response: past
 * `maxBuffered` the stream was cut off before its first byte was sent, at every reconnection, for ever. A server
 * holding at most 256 KiB for a client (1 MiB by default) and a backlog several times that: the same case, at a
 * sixth of the notifications to write first (each several statements, round trips on PostgreSQL).
 */
const N = 1200;

describe('a client catching up a long backlog', () => {
  it('reads it all over one stream, reading at an ordinary pace', async () => {
    const me = await t.member();
    await t.store.transaction(async (tx) => {
      for (let i = 0; i < N; i++) await notifyMadeUp(tx, me.user.id, [{ userId: me.user.id, id: newId() }], `Someone number ${i}`);
    });
    const got = await new Promise<{ events: number; bytes: number; cut: boolean }>((ok, fail) => {
      let events = 0;
      let bytes = 0;
      let text = '';
      const req = request(
        { host: '127.0.0.1', port, path: `${PREFIX}/users/${me.user.id}/notifications/stream`,
          headers: { 'api-key': me.creds.key, 'api-secret': me.creds.secret, 'last-event-id': '0'.repeat(32) } },
        (res) => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            bytes += Buffer.byteLength(chunk);
            text += chunk;
            let i;
            while ((i = text.indexOf('\n\n')) >= 0) {
              if (text.slice(0, i).startsWith('event: notification')) events++;
              text = text.slice(i + 2);
            }
            if (events >= N) { req.destroy(); ok({ events, bytes, cut: false }); }
            // An ordinary client: a little work per chunk it takes.
            res.pause();
            setTimeout(() => res.resume(), 1);
          });
          res.on('close', () => ok({ events, bytes, cut: true }));
          res.on('error', () => ok({ events, bytes, cut: true }));
        },
      );
      req.on('error', () => ok({ events, bytes, cut: true }));
      req.end();
      setTimeout(() => { req.destroy(); fail(new Error(`timed out with ${events}`)); }, 60_000);
    });
    expect({ events: got.events, cut: got.cut }).toEqual({ events: N, cut: false });
    // The backlog is well over what the server holds for a client: written at once, it would have been cut off.
    expect(got.bytes).toBeGreaterThan(3 * MAX_BUFFERED);
  }, 120_000);
});
