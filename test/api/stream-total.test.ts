import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import type { Credentials } from '../helpers/server.js';

/**
 * A stream's total is its sources' kept counts, less what two sources both hold (a followed user's status in a
 * followed page, counted by page and author), less what a suspended author wrote in them: always the number of
 * statuses the stream walks, each once.
 */
const t = useApp();
type Who = { user: { id: string }; creds: Credentials };

const ok = (method: string, path: string, as?: Who, body?: Record<string, unknown>) => t.ok(method, path, as, body);

describe("a stream's total", () => {
  it('counts each status once when a followed user posts in a followed page, and leaves out a suspended author', async () => {
    const [reader, ada, bob, cy] = [await t.member(), await t.member(), await t.member(), await t.member()];
    const config = (await ok('POST', '/page_configurations', undefined, { name: 'Stream totals' })).id as string;
    const page = async (owner: Who, privacy: string) =>
      (await ok('POST', '/pages', owner, { name: `${privacy} ${owner.user.id.slice(-6)}`, privacy, page_configuration_id: config, user_id: owner.user.id })).id as string;
    const garden = await page(ada, 'public');
    const club = await page(bob, 'private');
    const other = await page(cy, 'public');
    // The reader is in both pages (the private one by a request its creator accepted) and follows ada and bob.
    await ok('POST', '/follows', reader, { followable_type: 'Page', followable_id: garden, user_id: reader.user.id });
    const request = await ok('POST', '/page_access_requests', reader, { page_id: club, user_id: reader.user.id });
    await ok('PUT', `/page_access_requests/${request.id}/accept`, bob);
    for (const user of [ada, bob]) await ok('POST', '/follows', reader, { followable_type: 'User', followable_id: user.user.id, user_id: reader.user.id });
    // cy follows the garden page to post in it; cy's page is no source of the reader's.
    await ok('POST', '/follows', cy, { followable_type: 'Page', followable_id: garden, user_id: cy.user.id });

    const post = async (who: Who, page_id?: string) => (await ok('POST', '/statuses', who, { user_id: who.user.id, content: 'hello', ...(page_id ? { page_id } : {}) })).id as string;
    const shown = [
      await post(ada, garden), // ada's page walk and ada's user walk: once
      await post(ada, garden),
      await post(ada), // ada's own, to followers
      await post(bob, club), // a private page's: in the page walk only (it does not reach followers)
      await post(bob), // bob's own
      await post(cy, garden), // cy is not followed: the page walk only
    ];
    await post(cy, other); // in no source of the reader's
    await post(cy); // cy is not followed
    // The newest two: ada's in the garden page, each in two sources, first in the stream.
    const newest = [await post(ada, garden), await post(ada, garden)];
    shown.push(...newest);
    const adas = [...shown.slice(0, 3), ...newest];

    const stream = async () => {
      const body = await ok('GET', `/users/${reader.user.id}/stream?per_page=100`, reader);
      return { ids: (body.items as { id: string }[]).map((s) => s.id).sort(), total: body.total_items as number };
    };
    expect(await stream()).toEqual({ ids: [...shown].sort(), total: shown.length });
    // Page by page, following the Link cursor: full pages (the union's first rows are read once each, not a
    // followed user's status in a followed page twice, which would leave a page short), newest first, each once.
    const walked: string[] = [];
    let url: string | undefined = `/users/${reader.user.id}/stream?per_page=2`;
    while (url) {
      const res = await t.call('GET', url, { as: reader.creds });
      expect(res.status).toBe(200);
      const ids = (res.body.items as { id: string }[]).map((s) => s.id);
      walked.push(...ids);
      const link = res.headers.link as string | undefined;
      if (link) expect(ids.length, link).toBe(2);
      url = link ? /^<\/public-api\/v1([^>]+)>/.exec(link)![1] : undefined;
    }
    expect(walked).toEqual([...shown].reverse());

    // ada suspended: her statuses leave the reader's stream and its total, the garden page's overlap included.
    await ok('PUT', `/users/${ada.user.id}/suspension`, undefined, { reason: 'spam' });
    const withoutAda = shown.filter((id) => !adas.includes(id));
    expect(await stream()).toEqual({ ids: [...withoutAda].sort(), total: withoutAda.length });
    await ok('DELETE', `/users/${ada.user.id}/suspension`, undefined);
    expect(await stream()).toEqual({ ids: [...shown].sort(), total: shown.length });
  });
});
