import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { PREFIX, removeDir, type Credentials } from '../helpers/server.js';

/**
 * What a held live stream costs and how news reaches it: no read of its own while nothing is written for
 * its user; one read for all the streams of a user when a notification for them commits; and a notification
 * written by another app on the same database (another process) reaches a stream held here.
 */

/** Every read of a user's notifications after a number (the stream's read, `listAfter`). */
const READS = /"n"\."seq" >/;
let reads = 0;
let a: TestApp;
let b: TestApp;
let base: string;
beforeAll(async () => {
  a = await startApp({
    live: { heartbeatMs: 60_000 },
    storeOptions: { notificationPollMs: 100, onQuery: (sql) => void (READS.test(sql) && reads++) },
  });
  base = await a.app.listen({ port: 0, host: '127.0.0.1' });
  // A second app on the same database: another `agora serve`, with its own store and connections.
  b = await startApp({ dir: a.dir });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  removeDir(a.dir);
});

/** A stream of `userId` on app A: the notifications' ids as they arrive. */
async function listen(userId: string, creds: Credentials) {
  const controller = new AbortController();
  const res = await fetch(`${base}${PREFIX}/users/${userId}/notifications/stream`, {
    headers: { 'api-key': creds.key, 'api-secret': creds.secret },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const ids: string[] = [];
  let opened!: () => void;
  const ready = new Promise<void>((resolve) => (opened = resolve));
  void (async () => {
    let buffer = '';
    try {
      for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) {
        buffer += chunk;
        if (buffer.startsWith('retry:')) opened();
        for (const match of buffer.matchAll(/^id: (\S+)$/gm)) if (!ids.includes(match[1]!)) ids.push(match[1]!);
      }
    } catch {
      // Aborted at the end of the test.
    }
  })();
  await ready;
  return { ids, close: () => controller.abort() };
}

const until = async (check: () => boolean, what: string, ms = 3000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};
const settle = (ms = 400) => new Promise((resolve) => setTimeout(resolve, ms));

/** `fan` follows `target` through `app`: one notification for `target`. */
const follow = async (app: TestApp, fan: { user: { id: string }; creds: Credentials }, target: string) => {
  const res = await app.call('POST', '/follows', { as: fan.creds, body: { followable_type: 'User', followable_id: target, user_id: fan.user.id } });
  expect(res.status).toBe(201);
};

/** Writes that notify nobody: page configurations. */
const writeElsewhere = async (app: TestApp, n: number) => {
  for (let i = 0; i < n; i++) expect((await app.call('POST', '/page_configurations', { body: { name: `Other ${i} ${Date.now()}` } })).status).toBe(201);
};

describe('live streams wake when their user is notified', () => {
  it('read nothing while writes notify nobody, and once for all the streams of a user notified', async () => {
    const me = await a.member();
    const fan = await a.member();
    const streams = [await listen(me.user.id, me.creds), await listen(me.user.id, me.creds), await listen(me.user.id, me.creds)];
    try {
      await settle();
      reads = 0;
      // Before, every stream read its user's notifications 4 times a second whenever anything was written.
      await writeElsewhere(a, 5);
      await settle();
      expect(reads).toBe(0);
      await follow(a, fan, me.user.id);
      await until(() => streams.every((s) => s.ids.length === 1), 'the notification on every stream');
      await settle();
      // One read for the three (a second only if SQLite's shared look for other processes' writes happened
      // to run while the first was under way).
      expect(reads).toBeGreaterThanOrEqual(1);
      expect(reads).toBeLessThan(streams.length);
      expect(new Set(streams.map((s) => s.ids[0])).size).toBe(1);
    } finally {
      for (const s of streams) s.close();
    }
  });

  it('a notification written through another app on the same database reaches a stream held here, and nothing else is read', async () => {
    const me = await a.member();
    const other = await a.member();
    const fan = await b.member();
    const mine = await listen(me.user.id, me.creds);
    const theirs = await listen(other.user.id, other.creds);
    try {
      await settle();
      reads = 0;
      await writeElsewhere(b, 5);
      await settle();
      expect(reads).toBe(0);
      await follow(b, fan, me.user.id);
      await until(() => mine.ids.length === 1, 'the notification written by the other app');
      await settle();
      // Only the user notified was read, once; the other stream's user was not.
      expect(reads).toBe(1);
      expect(theirs.ids).toEqual([]);
      const [listed] = (await a.call('GET', `/users/${me.user.id}/notifications?per_page=1`, { as: me.creds })).body as { id: string }[];
      expect(mine.ids).toEqual([listed!.id]);
    } finally {
      mine.close();
      theirs.close();
    }
  });
});
