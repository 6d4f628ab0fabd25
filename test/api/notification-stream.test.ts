import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import { notifyMadeUp, startApp, type TestApp } from '../helpers/app.js';
import { PREFIX, removeDir, type Credentials } from '../helpers/server.js';

/** The live stream of docs/api.md over a real socket: Server-Sent Events, resumed with Last-Event-ID. */

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startApp({ live: { heartbeatMs: 300 } });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

interface SseEvent {
  event?: string;
  id?: string;
  data?: string;
  comment?: string;
}

/** A connected stream, read event by event. */
async function connect(userId: string, creds: Credentials, lastEventId?: string) {
  const controller = new AbortController();
  const res = await fetch(`${base}${PREFIX}/users/${userId}/notifications/stream`, {
    headers: { 'api-key': creds.key, 'api-secret': creds.secret, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal: controller.signal,
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const next = async (timeoutMs = 3000): Promise<SseEvent> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event: SseEvent = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) event.comment = line.slice(1).trim();
          else {
            const at = line.indexOf(':');
            (event as Record<string, string>)[line.slice(0, at)] = line.slice(at + 1).trimStart();
          }
        }
        return event;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no event in time');
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, fail) => setTimeout(() => fail(new Error('no event in time')), left)),
      ]);
      if (chunk.done) throw new Error('stream ended');
      buffer += chunk.value;
    }
  };
  /** The next notification, skipping keep-alive comments and the retry line. */
  const nextNotification = async (timeoutMs = 3000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = await next(Math.max(1, deadline - Date.now()));
      if (event.event === 'notification') return { id: event.id!, data: JSON.parse(event.data!) };
    }
  };
  return { res, next, nextNotification, close: () => controller.abort() };
}

const followedBy = async (target: string) => {
  const fan = await t.member();
  const res = await t.call('POST', '/follows', { as: fan.creds, body: { followable_type: 'User', followable_id: target, user_id: fan.user.id } });
  expect(res.status).toBe(201);
  return fan.user.id;
};

describe('GET /users/{id}/notifications/stream', () => {
  it('sends a notification created while connected within a second', async () => {
    const me = await t.member();
    const stream = await connect(me.user.id, me.creds);
    try {
      expect(stream.res.status).toBe(200);
      expect(stream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await stream.next(); // retry line
      const fan = await t.member();
      // From the moment the notification exists (the follow's commit) to its arrival.
      const res = await t.call('POST', '/follows', { as: fan.creds, body: { followable_type: 'User', followable_id: me.user.id, user_id: fan.user.id } });
      expect(res.status).toBe(201);
      const started = Date.now();
      const got = await stream.nextNotification(1000);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(got.data).toMatchObject({ user_id: me.user.id, notification_type: 'follow', subject_id: fan.user.id });
      expect(got.id).toBe(got.data.id);
    } finally {
      stream.close();
    }
  });

  it('resumes with Last-Event-ID: exactly what was missed, then live ones, nothing twice', async () => {
    const me = await t.member();
    const first = await connect(me.user.id, me.creds);
    await followedBy(me.user.id);
    const seen = await first.nextNotification();
    first.close();
    const missed = [await followedBy(me.user.id), await followedBy(me.user.id)];
    const again = await connect(me.user.id, me.creds, seen.id);
    try {
      const a = await again.nextNotification();
      const b = await again.nextNotification();
      expect([a.data.subject_id, b.data.subject_id]).toEqual(missed);
      const live = await followedBy(me.user.id);
      const c = await again.nextNotification();
      expect(c.data.subject_id).toBe(live);
      expect(new Set([seen.id, a.id, b.id, c.id]).size).toBe(4);
    } finally {
      again.close();
    }
  });

  it('sends a notification committed after a newer one (its id minted first), live and on resume', async () => {
    // On PostgreSQL two transactions may commit in the other order than they minted their ids: the stream
    // walks each user's numbers (given in commit order), so an older id committed late is not skipped.
    const me = await t.member();
    const stream = await connect(me.user.id, me.creds);
    const early = newId();
    try {
      await followedBy(me.user.id);
      const newer = await stream.nextNotification();
      expect(newer.id > early).toBe(true);
      await t.store.transaction((tx) => notifyMadeUp(tx, me.user.id, [{ userId: me.user.id, id: early }], 'Late Committer'));
      const late = await stream.nextNotification();
      expect(late.id).toBe(early);
      expect(late.data.subject_name).toBe('Late Committer');
    } finally {
      stream.close();
    }
    const resumed = await connect(me.user.id, me.creds, (await t.call('GET', `/users/${me.user.id}/notifications?per_page=2`)).body.find((n: { id: string }) => n.id !== early).id);
    try {
      expect((await resumed.nextNotification()).id).toBe(early);
    } finally {
      resumed.close();
    }
  });

  it('keeps an idle stream open with comment lines', async () => {
    const me = await t.member();
    const stream = await connect(me.user.id, me.creds);
    try {
      await stream.next();
      const beat = await stream.next(2000);
      expect(beat.comment).toBe('keep-alive');
    } finally {
      stream.close();
    }
  });

  it('ends, unfed, at its next delivery once its caller is suspended or their key revoked, with a last event saying why', async () => {
    for (const end of ['suspended', 'revoked'] as const) {
      const me = await t.member();
      const status = await t.call('POST', '/statuses', { as: me.creds, body: { user_id: me.user.id, content: 'soon removed' } });
      expect(status.status).toBe(201);
      const stream = await connect(me.user.id, me.creds);
      try {
        await followedBy(me.user.id);
        expect((await stream.nextNotification()).data.notification_type).toBe('follow');
        if (end === 'suspended') {
          expect((await t.call('PUT', `/users/${me.user.id}/suspension`, { body: { reason: 'spam' } })).status).toBe(200);
          // Someone else removes their status: they are told, but not on this stream.
          expect((await t.call('DELETE', `/statuses/${status.body.id}`)).status).toBe(204);
        } else {
          const keys = (await t.call('GET', `/api_keys?user_id=${me.user.id}`)).body.items as { id: string }[];
          for (const key of keys) expect((await t.call('DELETE', `/api_keys/${key.id}`)).status).toBe(204);
          await followedBy(me.user.id);
        }
        // Unfed, and told why in a last event (the error's body), so a client knows not to reconnect.
        let last = await stream.next(5000);
        for (; last.event !== 'ended'; last = await stream.next(5000)) expect(last.event, end).not.toBe('notification');
        expect(JSON.parse(last.data!).error, end).toMatchObject(
          end === 'suspended' ? { code: 'account_suspended', message: expect.stringMatching(/spam/) } : { code: 'unauthorized' },
        );
        await expect(stream.next(1000), end).rejects.toThrow('stream ended');
      } finally {
        stream.close();
      }
    }
  });

  it("does not count a stream's key revoked since as failed authentications of its address", async () => {
    // A budget of 2 failures an address: three streams of a revoked key would spend it if each re-check counted.
    const strict = await startApp({ auth: { failuresPerAddress: 2 } });
    try {
      const url = await strict.app.listen({ port: 0, host: '127.0.0.1' });
      const me = await strict.member();
      const streams = await Promise.all(
        [0, 1, 2].map(async () => {
          const res = await fetch(`${url}${PREFIX}/users/${me.user.id}/notifications/stream`, { headers: { 'api-key': me.creds.key, 'api-secret': me.creds.secret } });
          expect(res.status).toBe(200);
          return res.body!.pipeThrough(new TextDecoderStream()).getReader();
        }),
      );
      const keys = (await strict.call('GET', `/api_keys?user_id=${me.user.id}`)).body.items as { id: string }[];
      for (const key of keys) expect((await strict.call('DELETE', `/api_keys/${key.id}`)).status).toBe(204);
      const fan = await strict.member();
      expect((await strict.call('POST', '/follows', { as: fan.creds, body: { followable_type: 'User', followable_id: me.user.id, user_id: fan.user.id } })).status).toBe(201);
      // Each stream ends, unfed.
      for (const reader of streams) for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) expect(chunk.value).not.toContain('event: notification');
      // A key never seen before, from the same address, is checked as usual: not held back as after failures.
      const other = await strict.member();
      const res = await fetch(`${url}${PREFIX}/me`, { headers: { 'api-key': other.creds.key, 'api-secret': other.creds.secret } });
      expect(res.status).toBe(200);
    } finally {
      await strict.close();
      removeDir(strict.dir);
    }
  });

  it('is refused like the list: 403 for another user, 401 without credentials, 400 for a malformed Last-Event-ID', async () => {
    const [me, other] = [await t.member(), await t.member()];
    const url = `${base}${PREFIX}/users/${me.user.id}/notifications/stream`;
    const as = (c: Credentials) => ({ 'api-key': c.key, 'api-secret': c.secret });
    const forbidden = await fetch(url, { headers: as(other.creds) });
    expect(forbidden.status).toBe(403);
    expect(((await forbidden.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    expect((await fetch(url)).status).toBe(401);
    const bad = await fetch(url, { headers: { ...as(me.creds), 'last-event-id': 'not-an-id' } });
    expect(bad.status).toBe(400);
    // Named by where it came from: the header, or the query parameter (for clients that cannot set a header).
    expect(((await bad.json()) as { error: object }).error).toMatchObject({ code: 'invalid_header', message: 'Last-Event-ID must be the id of a notification' });
    const badQuery = await fetch(`${url}?last_event_id=not-an-id`, { headers: as(me.creds) });
    expect(((await badQuery.json()) as { error: object }).error).toMatchObject({ code: 'invalid_query', message: 'last_event_id must be the id of a notification' });
  });
});
