import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import { notifyMadeUp, startApp, type TestApp } from '../helpers/app.js';
import { PREFIX, removeDir } from '../helpers/server.js';

/**
 * docs/security.md, "live streams": a client that opens a stream and never reads it must not make the server hold
 * what it does not read. Before, every notification was written into the response's buffer whatever the client
 * took: 8 such streams of one user, resumed from the start of 26,000 notifications, grew the server by 1 GB.
 */

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await startApp({ live: { heartbeatMs: 60_000, maxBuffered: 64 * 1024 } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

/** A stream opened over a raw socket that is never read from (paused: the kernel's buffers fill, then the server's). */
async function openUnread(userId: string, creds: { key: string; secret: string }, lastEventId?: string) {
  const socket = connect({ port, host: '127.0.0.1' });
  await new Promise<void>((ok, fail) => socket.once('connect', ok).once('error', fail));
  socket.on('error', () => {});
  socket.write(
    `GET ${PREFIX}/users/${userId}/notifications/stream HTTP/1.1\r\nHost: x\r\nApi-Key: ${creds.key}\r\nApi-Secret: ${creds.secret}\r\n` +
      (lastEventId ? `Last-Event-ID: ${lastEventId}\r\n` : '') +
      '\r\n',
  );
  socket.pause();
  return socket;
}

describe('a live stream whose client does not read', () => {
  it('is cut off once it holds more than its bound unsent, and its place is free again', async () => {
    const me = await t.member();
    // 40 MB of notifications (1 MB each): more than any socket's buffers hold.
    const subject = 'x'.repeat(1_000_000);
    await t.store.transaction(async (tx) => {
      for (let i = 0; i < 40; i++) await notifyMadeUp(tx, me.user.id, [{ userId: me.user.id, id: newId() }], subject);
    });
    const streams = [];
    for (let i = 0; i < 8; i++) streams.push(await openUnread(me.user.id, me.creds, '0'.repeat(32)));
    // Every one of them is cut off during its replay: the user's 8 places are free again, so a 9th is let in.
    let status = 0;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      const probe = await fetch(`http://127.0.0.1:${port}${PREFIX}/users/${me.user.id}/notifications/stream`, {
        headers: { 'api-key': me.creds.key, 'api-secret': me.creds.secret },
      });
      status = probe.status;
      await probe.body?.cancel();
      if (status === 200) break;
      await new Promise((ok) => setTimeout(ok, 200));
    }
    for (const socket of streams) socket.destroy();
    expect(status).toBe(200);
  });
});
