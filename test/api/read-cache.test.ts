import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUserWithKey } from '../helpers/api.js';
import { removeDir, startServer, type RunningServer } from '../helpers/server.js';
import { afterAccessChange } from '../helpers/store-target.js';

/**
 * Reads see what another process committed, and the caller's key and role (remembered between requests) follow
 * another process's change: on SQLite from the next request (the data version is read at each one); on PostgreSQL
 * once that process's NOTIFY reaches this one's listening connection, milliseconds after its commit and at most the
 * listener's 2 s of trust (docs/operations.md), since nothing short of a round trip per request could tell sooner.
 */
let a: RunningServer;
let b: RunningServer;
beforeAll(async () => {
  a = await startServer();
  b = await startServer({ dir: a.dir });
});
afterAll(async () => {
  await b.stop();
  await a.stop();
  removeDir(a.dir);
});

const pageIds = async (server: RunningServer, as?: { key: string; secret: string }) => {
  const res = await call(server, 'GET', '/pages?per_page=100', { as });
  expect(res.status).toBe(200);
  return { ids: res.body.items.map((p: { id: string }) => p.id) as string[], total: res.body.total_items as number };
};

describe('reads after writes', () => {
  it('a page created by another process on the same database shows in the next read', async () => {
    const { user, creds } = await createUserWithKey(a);
    const config = await createPageConfiguration(a);
    const before = await pageIds(a, creds);
    expect(await pageIds(a, creds)).toEqual(before);

    const page = await createPage(b, { user_id: user.id, page_configuration_id: config.id });
    const after = await pageIds(a, creds);
    expect(after.total).toBe(before.total + 1);
    expect(after.ids).toContain(page.id);
  });

  it('a page created by the same server shows in the next read', async () => {
    const { user, creds } = await createUserWithKey(a);
    const config = await createPageConfiguration(a);
    const before = await pageIds(a, creds);
    const page = await createPage(a, { user_id: user.id, page_configuration_id: config.id }, creds);
    const after = await pageIds(a, creds);
    expect(after.total).toBe(before.total + 1);
    expect(after.ids).toContain(page.id);
  });

  it('a role changed by another process applies to the next call here (on PostgreSQL, once its NOTIFY arrives)', async () => {
    const { user, creds } = await createUserWithKey(a);
    expect((await call(a, 'GET', '/pages', { as: creds })).status).toBe(200);
    const sets = await call(b, 'GET', '/permission_sets');
    const visitors = sets.body.items.find((s: { name: string }) => s.name === 'Visitors');
    expect((await call(b, 'PUT', `/users/${user.id}/role`, { body: { permission_set_id: visitors.id } })).status).toBe(200);

    const refused = await afterAccessChange(() => call(a, 'GET', '/pages', { as: creds }), (res) => res.status !== 200);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('api_access_denied');
  });

  it('what one caller may see is never answered to another', async () => {
    const owner = await createUserWithKey(a);
    const outsider = await createUserWithKey(a);
    const config = await createPageConfiguration(a);
    const secret = await createPage(a, { user_id: owner.user.id, page_configuration_id: config.id, privacy: 'secret' }, owner.creds);
    expect((await pageIds(a, owner.creds)).ids).toContain(secret.id);
    expect((await pageIds(a, outsider.creds)).ids).not.toContain(secret.id);
    expect((await call(a, 'GET', `/pages/${secret.id}`, { as: owner.creds })).status).toBe(200);
    expect((await call(a, 'GET', `/pages/${secret.id}`, { as: outsider.creds })).status).toBe(404);
  });
});
