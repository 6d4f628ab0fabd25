import { describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration } from '../helpers/api.js';
import { useServer } from '../helpers/server.js';

const server = useServer();

/** A query parameter the request does not name is a 400 naming it, as a body's unknown field is a 422. */
describe('unknown query parameters', () => {
  it('refuse a misspelt filter, naming it and the parameters the request takes, instead of listing everything', async () => {
    const res = await call(server, 'GET', '/users?usr_id=abc&per_page=5');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_query');
    expect(res.body.error.message).toBe('"usr_id" is not a parameter of this request (it takes page, per_page, cursor, role, nickname, suspended, ids)');
    const two = await call(server, 'GET', '/pages?privacyy=secret&ownr=x');
    expect(two.status).toBe(400);
    expect(two.body.error.message).toMatch(/^"privacyy", "ownr" are not parameters of this request/);
    expect((await call(server, 'GET', '/users?per_page=5')).status).toBe(200);
    // Hundreds of them: a few named, the rest counted.
    const many = await call(server, 'GET', `/users?${Array.from({ length: 300 }, (_, i) => `p${i}=1`).join('&')}`);
    expect(many.status).toBe(400);
    expect(many.body.error.message).toMatch(/^"p0", "p1", "p2", "p3", "p4" and 295 more are not parameters of this request/);
  });

  it('refuse any on a request that takes none', async () => {
    const me = (await call(server, 'GET', '/me')).body;
    const res = await call(server, 'GET', `/users/${me.id}?fields=id`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_query', message: '"fields" is not a parameter of this request (it takes none)' });
  });

  it('leave a removal undone when its reason is misspelt: the status stays, with no reason lost', async () => {
    const me = (await call(server, 'GET', '/me')).body;
    const config = await createPageConfiguration(server);
    const page = await createPage(server, { user_id: me.id, page_configuration_id: config.id, privacy: 'public' });
    const status = await call(server, 'POST', '/statuses', { body: { user_id: me.id, page_id: page.id, content: 'off topic' } });
    expect(status.status, JSON.stringify(status.body)).toBe(201);
    const refused = await call(server, 'DELETE', `/statuses/${status.body.id}?reasn=spam`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/^"reasn" is not a parameter of this request \(it takes reason\)$/);
    expect((await call(server, 'GET', `/statuses/${status.body.id}`)).body.removed_at ?? null).toBeNull();
    // In both the query and the body: refused, not one of them dropped.
    const both = await call(server, 'DELETE', `/statuses/${status.body.id}?reason=spam`, { body: { reason: 'off topic' } });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toBe('reason is given in both the query and the body: give it once');
    expect((await call(server, 'GET', `/statuses/${status.body.id}`)).body.removed_at ?? null).toBeNull();
    expect((await call(server, 'DELETE', `/statuses/${status.body.id}?reason=spam`)).status).toBe(204);
  });
});

describe('query and body messages', () => {
  it('say a parameter given twice once, by name, and a bad per_page once', async () => {
    const twice = await call(server, 'GET', '/reports?user_id=a&user_id=b');
    expect(twice.status).toBe(400);
    expect(twice.body.error).toMatchObject({ code: 'invalid_query', message: '"user_id" was given more than once: give it once' });
    const huge = await call(server, 'GET', '/users?per_page=100000000000000000000000');
    expect(huge.body.error.message).toBe('per_page must be an integer between 1 and 100');
  });

  it('say a missing choice is required, and a wrong one what it must be', async () => {
    const id = '0123456789abcdef0123456789abcdef';
    const none = await call(server, 'PUT', `/reports/${id}/resolve`);
    expect(none.status).toBe(422);
    expect(none.body.error.fields).toEqual([{ field: 'action', message: 'is required' }]);
    const wrong = await call(server, 'PUT', `/reports/${id}/resolve`, { body: { action: 'ban' } });
    expect(wrong.body.error.fields).toEqual([{ field: 'action', message: 'must be one of: remove, suspend, none' }]);
  });
});
