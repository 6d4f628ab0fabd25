import { describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/domain/demo.js';
import { startApp, useApp } from '../helpers/app.js';

const t = useApp();

/**
 * A slug is unique, so a name already taken gets a numbered one: were a secret page (or an event in one) to take
 * the plain slug of its name, anyone outside it could learn that it exists by creating a page or an event of the
 * same name and reading the number on theirs.
 */
describe('slugs of what is hidden', () => {
  it("a secret page's name does not number the slug of a page of the same name made by someone outside it", async () => {
    const [ada, bob] = [await t.member(), await t.member()];
    const config = await t.ok('POST', '/page_configurations', undefined, { name: `Slugs ${Date.now()}` });
    const page = (as: typeof ada, privacy: string) =>
      t.ok('POST', '/pages', as, { name: 'Night Shift', privacy, page_configuration_id: config.id, user_id: as.user.id });
    const secret = await page(ada, 'secret');
    expect(secret.slug).toMatch(/^night-shift-h[0-9a-f]{8}$/);
    expect((await t.call('GET', '/pages?slug=night-shift', { as: bob.creds })).body.total_items).toBe(0);
    // Bob's page gets the slug it would get were there no secret page: the plain one, then the next number.
    expect((await page(bob, 'public')).slug).toBe('night-shift');
    expect((await page(bob, 'private')).slug).toBe('night-shift-2');
    expect((await page(ada, 'secret')).slug).toMatch(/^night-shift-h[0-9a-f]{8}$/);
    expect((await page(bob, 'public')).slug).toBe('night-shift-3');
  });

  it('an event in a secret page does not number the slug of an event of the same name elsewhere', async () => {
    const [ada, bob] = [await t.member(), await t.member()];
    const config = await t.ok('POST', '/page_configurations', undefined, { name: `Event slugs ${Date.now()}` });
    const secret = await t.ok('POST', '/pages', ada, { name: 'Den', privacy: 'secret', page_configuration_id: config.id, user_id: ada.user.id });
    const dates = { start_date: '2030-01-01T10:00:00Z', end_date: '2030-01-01T12:00:00Z' };
    const hidden = await t.ok('POST', '/events', ada, { name: 'Quiet Gathering', page_id: secret.id, user_id: ada.user.id, ...dates });
    expect(hidden.slug).toMatch(/^quiet-gathering-h[0-9a-f]{8}$/);
    expect((await t.ok('POST', '/events', bob, { name: 'Quiet Gathering', user_id: bob.user.id, ...dates })).slug).toBe('quiet-gathering');
    // Outside a secret page an event's slug is numbered as before.
    expect((await t.ok('POST', '/events', ada, { name: 'Quiet Gathering', user_id: ada.user.id, ...dates })).slug).toBe('quiet-gathering-2');
  });

  it("the demo's secret page does not number the slug of a page of the same name either", async () => {
    const demo = await startApp();
    try {
      expect(await seedDemo(demo.deps)).toBe(true);
      const secret = (await demo.call('GET', '/pages?privacy=secret')).body.items;
      expect(secret.map((p: { slug: string }) => p.slug)).toEqual([expect.stringMatching(/^board-room-h[0-9a-f]{8}$/)]);
      const config = (await demo.call('GET', '/page_configurations')).body.items[0].id;
      const me = (await demo.call('GET', '/me')).body.id;
      const page = await demo.call('POST', '/pages', { body: { name: 'Board Room', privacy: 'public', page_configuration_id: config, user_id: me } });
      expect(page.body.slug).toBe('board-room');
      expect((await demo.call('GET', '/pages?privacy=public')).body.items.map((p: { slug: string }) => p.slug)).toContain('garden-club');
    } finally {
      await demo.close();
    }
  });
});
