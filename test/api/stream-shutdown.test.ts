import { afterAll, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { PREFIX, removeDir } from '../helpers/server.js';

/**
 * A graceful shutdown ends the live streams first (they never end by themselves), then waits for the requests under
 * way. A stream whose request was under way then must not open after the streams were ended: the shutdown would wait
 * for its listener to hang up (seen as `agora serve` not exiting within 30 s of SIGTERM while a watch reconnected).
 */
let t: TestApp | undefined;
afterAll(async () => {
  await t?.store.close();
  if (t) removeDir(t.dir);
});

it('a stream whose request is under way when the server starts closing is refused (503), and the closing does not wait for it', async () => {
  let arrived!: () => void;
  const inFlight = new Promise<void>((ok) => (arrived = ok));
  let ended!: () => void;
  const streamsEnded = new Promise<void>((ok) => (ended = ok));
  // The stream's request waits, once received, until the app's own preClose hook (which ends the streams) has run.
  t = await startApp({
    beforeReady: (app) => {
      app.addHook('onRequest', async (request) => {
        if (!request.url.endsWith('/stream')) return;
        arrived();
        await streamsEnded;
      });
      app.addHook('preClose', async () => ended());
    },
  });
  const member = await t.member();
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const answer = fetch(`${base}${PREFIX}/users/${member.user.id}/notifications/stream`, {
    headers: { 'api-key': member.creds.key, 'api-secret': member.creds.secret },
  });
  await inFlight;
  const closing = t.app.close();
  const res = await answer;
  expect(res.status).toBe(503);
  expect((await res.json()) as unknown).toMatchObject({ error: { code: 'server_busy', message: 'The server is shutting down: retry later' } });
  expect(res.headers.get('retry-after')).toBe('1');
  const closed = await Promise.race([closing.then(() => 'closed'), new Promise((ok) => setTimeout(() => ok('still open after 5 s'), 5000))]);
  expect(closed).toBe('closed');
});
