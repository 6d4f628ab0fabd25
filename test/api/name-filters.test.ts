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
    const roles = (await t.call('GET', '/permission_sets?name=members')).body;
    expect(roles.items.map((r: { name: string }) => r.name)).toEqual(['Members']);
    expect(roles.total_items).toBe(1);
  });
});
