import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import { queueCalls } from '../helpers/queue.js';
import { badPlans, type Query } from '../helpers/plans.js';
import { onPostgres, openRaw } from '../helpers/store-target.js';
import { moderationQueueRepo } from '../../src/store/moderation.js';
import { auditLogRepo } from '../../src/store/audit.js';

/** GET /moderation_queue (docs/api.md), in process on a real store. */

const t = useApp({ webhooks: { allowPrivate: true } });

interface Item {
  kind: 'page_access_request' | 'invite';
  id: string;
  page: { id: string; name: string };
  user: { id: string; nickname: string };
  created_at: string;
}
type Member = Awaited<ReturnType<typeof t.member>>;
const { ask, queue } = queueCalls<Item>(t);

let configId: string;
let ada: Member; // creates Book Circle
let bob: Member; // creates Chess Club
let carol: Member;
let dan: Member;
let bookCircle: string;
let chessClub: string;

async function page(owner: Member, name: string): Promise<string> {
  const res = await t.call('POST', '/pages', {
    as: owner.creds,
    body: { name, page_configuration_id: configId, privacy: 'private', user_id: owner.user.id },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}


async function invite(from: Member, pageId: string, to: Member): Promise<string> {
  t.clock.advance(1000);
  const res = await t.call('POST', '/invites', {
    as: from.creds,
    body: { target_type: 'Page', target_id: pageId, user_id: from.user.id, user_target_ids: [to.user.id] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.success[0].id;
}


beforeAll(async () => {
  configId = (await t.call('POST', '/page_configurations', { body: { name: 'Clubs' } })).body.id;
  [ada, bob, carol, dan] = await Promise.all([
    t.member({ nickname: 'ada' }),
    t.member({ nickname: 'bob' }),
    t.member({ nickname: 'carol' }),
    t.member({ nickname: 'dan' }),
  ]);
  bookCircle = await page(ada, 'Book Circle');
  chessClub = await page(bob, 'Chess Club');
});

describe('who sees what', () => {
  it('lists the waiting items of the pages the caller administers, oldest first: all for an Admin, their own pages for a creator, none for a Member', async () => {
    const r1 = await ask(carol, bookCircle);
    const r2 = await ask(dan, chessClub);
    const i1 = await invite(ada, bookCircle, dan);
    const r3 = await ask(dan, bookCircle);

    const all = await queue();
    expect(all.items.map((i) => i.id)).toEqual([r1, r2, i1, r3]);
    expect(all.total_items).toBe(4);
    expect(all.items[0]).toMatchObject({ kind: 'page_access_request', page: { id: bookCircle, name: 'Book Circle' }, user: { id: carol.user.id } });
    expect(all.items[2]).toMatchObject({ kind: 'invite', page: { id: bookCircle }, user: { id: dan.user.id } });
    const times = all.items.map((i) => i.created_at);
    expect([...times].sort()).toEqual(times);

    expect((await queue(ada.creds)).items.map((i) => i.id)).toEqual([r1, i1, r3]);
    expect((await queue(bob.creds)).items.map((i) => i.id)).toEqual([r2]);
    expect(await queue(carol.creds)).toMatchObject({ items: [], total_items: 0 });

    // Settled items leave the queue, whichever way they were settled.
    expect((await t.call('PUT', `/page_access_requests/${r1}/accept`, { as: ada.creds })).status).toBe(200);
    expect((await t.call('PUT', `/page_access_requests/${r2}/refuse`, { as: bob.creds })).status).toBe(204);
    expect((await t.call('PUT', `/invites/${i1}/refuse`, { as: ada.creds })).status).toBe(200);
    expect((await queue()).items.map((i) => i.id)).toEqual([r3]);
    expect((await t.call('PUT', `/page_access_requests/${r3}/accept`)).status).toBe(200);
    const i2 = await invite(ada, bookCircle, bob);
    expect((await queue(ada.creds)).items.map((i) => i.id)).toEqual([i2]);
    expect((await t.call('DELETE', `/invites/${i2}`, { as: ada.creds })).status).toBe(204);
    expect((await queue()).total_items).toBe(0);
  });

  it('accepting an item gives the same follow, notification and webhook as the endpoint does', async () => {
    const hook = await t.call('POST', '/webhooks', {
      body: { url: 'http://127.0.0.1:9/hook', events: ['page_access_request.updated'] },
    });
    expect(hook.status).toBe(201);
    const erin = await t.member({ nickname: 'erin' });
    const id = await ask(erin, chessClub);
    const [item] = (await queue(bob.creds)).items.filter((i) => i.user.id === erin.user.id);
    expect(item!.id).toBe(id);
    expect((await t.call('PUT', `/page_access_requests/${item!.id}/accept`, { as: bob.creds })).body.state).toBe('accepted');
    const follows = await t.call('GET', `/follows?followable_type=Page&followable_id=${chessClub}&user_id=${erin.user.id}`);
    expect(follows.body.total_items).toBe(1);
    await t.app.fanOut.drain();
    const told = await t.call('GET', `/users/${erin.user.id}/notifications`, { as: erin.creds });
    expect(told.body.map((n: { notification_type: string }) => n.notification_type)).toContain('page_access_request_accepted');
    const deliveries = await t.call('GET', `/webhooks/${hook.body.id}/deliveries`);
    expect(deliveries.body.items.map((d: { event: string }) => d.event)).toContain('page_access_request.updated');
    await t.call('DELETE', `/webhooks/${hook.body.id}`);
  });
});

describe('paging', () => {
  it('follows the Link cursor to the end without skipping or repeating, even with items created meanwhile', async () => {
    const fresh = await Promise.all([1, 2, 3, 4, 5].map((n) => t.member({ nickname: `walker${n}` })));
    const made: string[] = [];
    for (const m of fresh.slice(0, 4)) made.push(await ask(m, bookCircle));
    const first = await queue(ada.creds, '?per_page=2');
    expect(first.items.map((i) => i.id)).toEqual(made.slice(0, 2));
    expect(first.total_items).toBe(4);
    expect(first.link).toMatch(/^<\/public-api\/v1\/moderation_queue\?per_page=2&cursor=[\w-]+>; rel="next"$/);
    made.push(await ask(fresh[4]!, bookCircle)); // created while walking
    const seen = [...first.items.map((i) => i.id)];
    let link = first.link;
    while (link) {
      const path = /^<\/public-api\/v1(.+)>/.exec(link)![1]!;
      const next = await queue(ada.creds, path.replace('/moderation_queue', ''));
      seen.push(...next.items.map((i) => i.id));
      link = next.link;
    }
    expect(seen).toEqual(made);
    // The page numbers still work, and carry the cursor of the page after them.
    expect((await queue(ada.creds, '?per_page=2&page=3')).items.map((i) => i.id)).toEqual(made.slice(4));
    for (const id of made) await t.call('PUT', `/page_access_requests/${id}/refuse`, { as: ada.creds });
  });

  it('refuses a cursor with page, and a cursor it did not give', async () => {
    const both = await t.call('GET', '/moderation_queue?page=1&cursor=abc');
    expect(both.status).toBe(400);
    expect(both.body.error.message).toBe('cursor and page cannot be used together: a cursor already says where the page starts');
    const forged = await t.call('GET', '/moderation_queue?cursor=bm9wZQ');
    expect(forged.status).toBe(400);
    expect(forged.body.error.code).toBe('invalid_query');
  });

  it('walks an index in order: no table scan and no temporary b-tree, for Admins, creators and cursors', async () => {
    const after = ['2026-11-20T10:00:00.000Z', 'f'.repeat(32)];
    const positions = [{ page: 1, per_page: 25 }, { page: 2, per_page: 1 }, { page: 1, per_page: 25, cursor: after }];
    const compiled: Query[] = [];
    // Run on the test's own store (read only), every query seen as it runs, then explained there.
    const log = (event: LogEvent) => void compiled.push({ sql: event.query.sql, parameters: event.query.parameters });
    const db = onPostgres
      ? new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: t.file, max: 1 }) }), log })
      : new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(t.file, { readonly: true }) }), log });
    const queueRepo = moderationQueueRepo(db);
    const auditRepo = auditLogRepo(db);
    for (const viewer of [{ id: ada.user.id, isAdmin: false }, { id: t.admin.id, isAdmin: true }])
      for (const position of positions) await queueRepo.list(viewer, position);
    for (const filter of [{}, { actor_id: ada.user.id }, { action: 'user.create' }, { target_type: 'user', target_id: ada.user.id }, { since: after[0] }])
      for (const position of positions) await auditRepo.list(filter, position);
    expect(compiled.length).toBeGreaterThan(20);
    await db.destroy();
    expect(await badPlans(t.file, compiled)).toEqual([]);
    if (onPostgres) return;
    const raw = await openRaw(t.file, { readonly: true });
    const plans = await Promise.all(
      compiled.map(async ({ sql, parameters }) => (await raw.all<{ detail: string }>(`explain query plan ${sql}`, [...parameters])).map((r) => r.detail)),
    );
    await raw.close();
    for (const plan of plans) {
      expect(plan.join(' | ')).not.toMatch(/TEMP B-TREE/);
      // A subquery's heading is no step of its own: the steps under it are checked as the others.
      // (Alone on an empty page, a total in SQL is read from a constant row.)
      // (Nor are a union's headings, nor the scan of its rows or of one walk's, at most a page each, read back from a subquery.)
      const heading = /^((CORRELATED )?SCALAR SUBQUERY \d+|SCAN CONSTANT ROW|COMPOUND QUERY|LEFT-MOST SUBQUERY|UNION ALL|MERGE \(UNION( ALL)?\)|LEFT|RIGHT|(CO-ROUTINE|MATERIALIZE|SCAN) (w\d+|walks))$/;
      for (const step of plan.filter((s) => !heading.test(s)))
        // (A kept count is a lookup of `list_counts`'s primary key, a table without rowid.)
        expect(step).toMatch(/USING (COVERING )?INDEX|USING (INTEGER )?PRIMARY KEY/);
    }
  });
});
