import { describe, expect, it } from 'vitest';
import { call } from '../helpers/api.js';
import { useApp } from '../helpers/app.js';
import { PREFIX, useServer } from '../helpers/server.js';

/** X-Request-Id on every answer, in every error body, and in the server's log line (docs/api.md). */

const HEX_ID = /^[0-9a-f]{32}$/;

describe('in process', () => {
  const t = useApp();

  it('answers with an X-Request-Id, and puts it in every error body', async () => {
    const ok = await t.call('GET', '/me');
    expect(ok.headers['x-request-id']).toMatch(HEX_ID);
    for (const [method, path, as, status] of [
      ['GET', '/me', null, 401],
      ['GET', '/nowhere', undefined, 404],
      ['GET', '/pages?per_page=1000', undefined, 400],
      ['POST', '/pages', undefined, 422],
      ['GET', '/audit_log', undefined, 200],
    ] as const) {
      const res = await t.call(method, path, { as, body: method === 'POST' ? {} : undefined });
      expect(res.status, path).toBe(status);
      expect(res.headers['x-request-id'], path).toMatch(HEX_ID);
      if (status >= 400) expect(res.body.error.request_id, path).toBe(res.headers['x-request-id']);
    }
    // Before routing: a malformed escape in the path; without valid credentials, 401 as on every path.
    const headers = { 'api-key': t.admin.key, 'api-secret': t.admin.secret };
    for (const [sent, status] of [[headers, 400], [{}, 401], [{ ...headers, 'api-secret': 'as_wrong' }, 401]] as const) {
      const early = await t.app.inject({ method: 'GET', url: `${PREFIX}/pages/%E0%A4%A`, headers: sent });
      expect(early.statusCode).toBe(status);
      expect(early.json().error.code).toBe(status === 400 ? 'malformed_request' : 'unauthorized');
      expect(early.headers['x-request-id']).toMatch(HEX_ID);
      expect(early.json().error.request_id).toBe(early.headers['x-request-id']);
    }
    // Let in as every request is: a suspended user's key is refused as such, a flood of wrong secrets told when to retry.
    const suspended = await t.member();
    expect((await t.call('PUT', `/users/${suspended.user.id}/suspension`, { body: { reason: 'spam' } })).status).toBe(200);
    const bySuspended = await t.app.inject({ method: 'GET', url: `${PREFIX}/pages/%E0%A4%A`, headers: { 'api-key': suspended.creds.key, 'api-secret': suspended.creds.secret } });
    expect([bySuspended.statusCode, bySuspended.json().error.code]).toEqual([403, 'account_suspended']);
    const wrong = { 'api-key': suspended.creds.key, 'api-secret': 'as_wrong' };
    let limited;
    for (let i = 0; i < 30 && !limited; i++) {
      const res = await t.app.inject({ method: 'GET', url: `${PREFIX}/pages/%E0%A4%A`, headers: wrong, remoteAddress: '10.9.8.7' });
      if (res.statusCode === 429) limited = res;
      else expect(res.statusCode).toBe(401);
    }
    expect(limited?.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('keeps a sane id the client sent, and replaces one that is not', async () => {
    const kept = await t.call('GET', '/nowhere', { headers: { 'x-request-id': 'trace-7f3a/b:9' } });
    expect(kept.headers['x-request-id']).toBe('trace-7f3a/b:9');
    expect(kept.body.error.request_id).toBe('trace-7f3a/b:9');
    expect((await t.call('GET', '/me', { headers: { 'x-request-id': 'x'.repeat(128) } })).headers['x-request-id']).toBe('x'.repeat(128));
    for (const insane of ['x'.repeat(129), 'two words', 'caf\u00e9', '']) {
      const res = await t.call('GET', '/me', { headers: { 'x-request-id': insane } });
      expect(res.headers['x-request-id'], insane).toMatch(HEX_ID);
    }
  });

  it('two requests never share an id', async () => {
    const [a, b] = await Promise.all([t.call('GET', '/me'), t.call('GET', '/me')]);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });
});

describe('the real server with --log', () => {
  const server = useServer({ args: ['--log'] });

  it('names the request id of an error body in its log line for that request, and on the live stream', async () => {
    const res = await call(server, 'GET', '/pages/unknown-page');
    expect(res.status).toBe(404);
    const id = res.body.error.request_id as string;
    expect(res.headers.get('x-request-id')).toBe(id);
    const me = (await call(server, 'GET', '/me')).body.id;
    const stream = await fetch(`${server.url}${PREFIX}/users/${me}/notifications/stream`, {
      headers: { 'api-key': server.admin.key, 'api-secret': server.admin.secret, 'x-request-id': 'watching-1' },
    });
    expect(stream.headers.get('x-request-id')).toBe('watching-1');
    await stream.body!.cancel();
    const lines = (server.output() + server.errors()).split('\n').filter((l) => l.includes(id));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.some((l) => /"statusCode":404/.test(l))).toBe(true);
  });
});
