import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { PREFIX, removeDir } from '../helpers/server.js';

/**
 * A live stream whose caller may no longer read it ends even when nothing is delivered to it: at its next
 * keep-alive, with the same last `ended` event as before a delivery, so a client knows not to reconnect. Before,
 * such a stream was checked only before a delivery, and stayed open on keep-alives for as long as none came.
 */

const HEARTBEAT_MS = 300;
let t: TestApp;
let base: string;
/** The statements reading a caller (their key, user or role) while set; the server's own pollers read other tables. */
let queries: string[] | undefined;
const CALLER = /"(api_keys|users|permission_sets)"/;
beforeAll(async () => {
  const onQuery = (sql: string) => void (CALLER.test(sql) && queries?.push(sql));
  t = await startApp({ live: { heartbeatMs: HEARTBEAT_MS }, storeOptions: { onQuery } });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

/** A Member's stream of their own notifications, open (its first line read), and everything it writes from then on. */
async function openStream() {
  const me = await t.member();
  const controller = new AbortController();
  const res = await fetch(`${base}${PREFIX}/users/${me.user.id}/notifications/stream`, {
    headers: { 'api-key': me.creds.key, 'api-secret': me.creds.secret },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!text.includes('\n\n')) {
    const chunk = await reader.read();
    if (chunk.done) throw new Error('stream ended before its first line');
    text += chunk.value;
  }
  /** Everything written until the stream ends, or what was written by `ms` if it has not ended by then. */
  const untilEnd = async (ms: number) => {
    const timer = setTimeout(() => controller.abort(), ms);
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
      return { ended: true, text };
    } catch {
      return { ended: false, text };
    } finally {
      clearTimeout(timer);
    }
  };
  return { me, untilEnd };
}

const lastEvent = (text: string) => {
  const blocks = text.trim().split('\n\n');
  const lines = blocks[blocks.length - 1]!.split('\n');
  return { event: lines.find((l) => l.startsWith('event: '))?.slice(7), data: lines.find((l) => l.startsWith('data: '))?.slice(6) };
};

const ENDS = ['its caller is suspended', 'its key is deleted', 'its caller is moved to Visitors'] as const;

it.each(ENDS)('ends an idle stream at its next keep-alive once %s', async (end) => {
  const { me, untilEnd } = await openStream();
  let expected: object;
  if (end === 'its caller is suspended') {
    expect((await t.call('PUT', `/users/${me.user.id}/suspension`, { body: { reason: 'spam' } })).status).toBe(200);
    expected = { code: 'account_suspended', message: expect.stringMatching(/spam/) };
  } else if (end === 'its key is deleted') {
    const keys = (await t.call('GET', `/api_keys?user_id=${me.user.id}`)).body.items as { id: string }[];
    expect(keys).toHaveLength(1);
    expect((await t.call('DELETE', `/api_keys/${keys[0]!.id}`)).status).toBe(204);
    expected = { code: 'unauthorized' };
  } else {
    const sets = (await t.call('GET', '/permission_sets?per_page=100')).body.items as { id: string; name: string }[];
    const visitors = sets.find((s) => s.name === 'Visitors')!.id;
    const moved = await t.call('PUT', `/users/${me.user.id}/role`, { body: { permission_set_id: visitors } });
    expect(moved.status).toBe(200);
    expected = { code: 'api_access_denied' };
  }
  const changed = Date.now();
  // A keep-alive is due a heartbeat after the last write (looked at every third of one); a few more for a slow machine.
  const { ended, text } = await untilEnd(6 * HEARTBEAT_MS);
  expect(ended, `${end}: still open ${Date.now() - changed} ms later, having written ${JSON.stringify(text)}`).toBe(true);
  expect(text).not.toContain('event: notification');
  const last = lastEvent(text);
  expect(last.event).toBe('ended');
  expect(JSON.parse(last.data!).error).toMatchObject(expected);
  // Nothing was written for them: no delivery (whose check would have ended the stream too) came first.
  expect((await t.call('GET', `/users/${me.user.id}/notifications`)).headers['x-total-count']).toBe('0');
});

it('keeps a stream whose caller may still read it open, on keep-alives checked without a query', async () => {
  const { untilEnd } = await openStream();
  queries = [];
  try {
    const { ended, text } = await untilEnd(4 * HEARTBEAT_MS);
    expect(ended).toBe(false);
    expect(text.match(/: keep-alive/g)?.length).toBeGreaterThanOrEqual(2);
    expect(text).not.toContain('event: ended');
    // Nothing changed: the caller is checked from what the process remembers.
    expect(queries).toEqual([]);
  } finally {
    queries = undefined;
  }
});
