import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';

/** The exact-match filters the CLI resolves names with: one request finds the record a person named. */
const t = useApp();

describe('list filters by the names people type', () => {
  it('finds a page and an event by slug, a page configuration and a role by name, exactly', async () => {
    const config = (await t.call('POST', '/page_configurations', { body: { name: 'Community' } })).body;
    await t.call('POST', '/page_configurations', { body: { name: 'Community centres' } });
    const page = (await t.call('POST', '/pages', { body: { name: 'Garden Club', page_configuration_id: config.id, privacy: 'public', user_id: t.admin.id } })).body;
    await t.call('POST', '/pages', { body: { name: 'Garden Club', page_configuration_id: config.id, privacy: 'public', user_id: t.admin.id } });
    const event = (
      await t.call('POST', '/events', {
        body: { name: 'Seed swap', user_id: t.admin.id, start_date: '2026-12-05T10:00:00Z', end_date: '2026-12-05T12:00:00Z' },
      })
    ).body;

    const pages = (await t.call('GET', `/pages?slug=${page.slug}`)).body;
    expect(pages).toEqual({ items: [page], total_items: 1 });
    expect((await t.call('GET', '/pages?slug=garden')).body).toEqual({ items: [], total_items: 0 });
    expect((await t.call('GET', `/events?slug=${event.slug}`)).body.items.map((e: { id: string }) => e.id)).toEqual([event.id]);
    const configs = (await t.call('GET', '/page_configurations?name=Community')).body;
    expect(configs).toEqual({ items: [config], total_items: 1 });
    // A nickname whatever its case, as nicknames are unique ignoring it.
    const ada = await t.member();
    for (const nickname of [ada.user.nickname, ada.user.nickname.toUpperCase()])
      expect((await t.call('GET', `/users?nickname=${encodeURIComponent(nickname)}`)).body.items.map((u: { id: string }) => u.id)).toEqual([ada.user.id]);
    expect((await t.call('GET', `/users?nickname=${ada.user.nickname.slice(0, -1)}`)).body.total_items).toBe(0);
    const roles = (await t.call('GET', '/permission_sets?name=members')).body;
    expect(roles.items.map((r: { name: string }) => r.name)).toEqual(['Members']);
    expect(roles.total_items).toBe(1);
  });
});

describe('ids=a,b,c: the records a table names, in one request', () => {
  it('answers those of the ids that exist and the caller may see, in the order asked', async () => {
    const config = (await t.call('POST', '/page_configurations', { body: { name: 'Clubs by id' } })).body;
    const ada = await t.member();
    const linus = await t.member();
    const unknown = '0123456789abcdef0123456789abcdef';
    const users = (await t.call('GET', `/users?ids=${linus.user.id},${unknown},${ada.user.id},${linus.user.id}`)).body;
    expect(users.items.map((u: { id: string }) => u.id)).toEqual([linus.user.id, ada.user.id]);
    expect(users.total_items).toBe(2);
    expect(users.items[0]).toEqual((await t.call('GET', `/users/${linus.user.id}`)).body);

    const open = (await t.call('POST', '/pages', { as: ada.creds, body: { name: 'Open', page_configuration_id: config.id, privacy: 'public', user_id: ada.user.id } })).body;
    const hidden = (await t.call('POST', '/pages', { as: ada.creds, body: { name: 'Hidden', page_configuration_id: config.id, privacy: 'secret', user_id: ada.user.id } })).body;
    // A secret page stays hidden from someone outside it, by id as by any other way.
    const seenByLinus = (await t.call('GET', `/pages?ids=${hidden.id},${open.id}`, { as: linus.creds })).body;
    expect(seenByLinus).toEqual({ items: [open], total_items: 1 });
    expect((await t.call('GET', `/pages?ids=${hidden.id},${open.id}`, { as: ada.creds })).body.total_items).toBe(2);
    expect((await t.call('GET', `/page_configurations?ids=${config.id}`)).body).toEqual({ items: [config], total_items: 1 });
    const members = (await t.call('GET', '/permission_sets?name=Members')).body.items[0];
    expect((await t.call('GET', `/permission_sets?ids=${members.id}`)).body.items.map((r: { name: string }) => r.name)).toEqual(['Members']);
    // Paged like any list, its Link header naming the next page by number (a list by ids takes no cursor).
    const ids = `${linus.user.id},${ada.user.id}`;
    const first = await t.call('GET', `/users?ids=${ids}&per_page=1`);
    expect(first.headers.link).toBe(`</public-api/v1/users?ids=${encodeURIComponent(ids)}&per_page=1&page=2>; rel="next"`);
    const second = await t.call('GET', `/users?ids=${ids}&per_page=1&page=2`);
    expect(second.body).toEqual({ items: [expect.objectContaining({ id: ada.user.id })], total_items: 2 });
    expect(second.headers.link).toBeUndefined();
  });

  it('takes at most 100 ids, and no other filter or cursor with them (400)', async () => {
    const many = Array.from({ length: 101 }, (_, i) => i.toString(16).padStart(32, '0')).join(',');
    const tooMany = await t.call('GET', `/users?ids=${many}`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({ code: 'invalid_query', message: 'ids must be 1 to 100 comma-separated ids' });
    expect((await t.call('GET', '/users?ids=,,')).status).toBe(400);
    const mixed = await t.call('GET', `/users?ids=${t.admin.id}&nickname=admin`);
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.message).toBe('ids cannot be used with other filters or a cursor: the ids name the records already');
    expect((await t.call('GET', `/pages?ids=${t.admin.id}&privacy=public`)).status).toBe(400);
  });
});
