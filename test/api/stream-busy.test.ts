import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { PREFIX, removeDir } from '../helpers/server.js';

/**
 * A live stream ends with `event: ended` only when its caller may no longer read it: a client told so does not
 * reconnect. A check that could not be made (the credential checks busy: 429) is no refusal. Here the remembered
 * pairs hold one key and the scrypt queue none waiting, so that the keep-alive checks of idle streams find the
 * server busy, as a process that verified more keys than it remembers finds it at each heartbeat.
 */
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startApp({ live: { heartbeatMs: 200 }, auth: { maxEntries: 1, verifyConcurrency: 1, verifyQueue: 0 } });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

it('a stream whose check finds the server busy is not told to stay away', async () => {
  const streams: { controller: AbortController; reader: ReadableStreamDefaultReader<string> }[] = [];
  // The users first, before any stream's checks keep the one scrypt place busy (creating one checks the Admin's key).
  const members = [];
  for (let i = 0; i < 6; i++) members.push(await t.member());
  for (const me of members) {
    const controller = new AbortController();
    const open = () =>
      fetch(`${base}${PREFIX}/users/${me.user.id}/notifications/stream`, {
        headers: { 'api-key': me.creds.key, 'api-secret': me.creds.secret },
        signal: controller.signal,
      });
    // Opening meets the busy checks too (the streams already open being checked): it is asked again.
    let res = await open();
    for (let tries = 0; res.status === 429 && tries < 50; tries++) res = await open();
    expect(res.status).toBe(200);
    streams.push({ controller, reader: res.body!.pipeThrough(new TextDecoderStream()).getReader() });
  }
  const texts = await Promise.all(
    streams.map(async ({ controller, reader }) => {
      let text = '';
      const timer = setTimeout(() => controller.abort(), 2000);
      try {
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
      } catch {
        // Aborted: still open.
      } finally {
        clearTimeout(timer);
      }
      return text;
    }),
  );
  // Each stream was checked at its keep-alives (some found the server busy), and none was told to stay away.
  for (const text of texts) {
    expect(text).toContain(': keep-alive');
    expect(text).not.toContain('event: ended');
  }
});
