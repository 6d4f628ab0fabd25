import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { badPlans } from '../helpers/plans.js';
import { removeDir, type Credentials } from '../helpers/server.js';
import { openRaw } from '../helpers/store-target.js';
import { eventEnds } from '../../src/store/migrations/0033-event-ends.js';
import { eventEndMonths } from '../../src/store/migrations/0038-event-end-months.js';

/**
 * `event_date=current_and_coming` of everyone's events: its total is the kept counts of the days left in this
 * month and of the months after it (by the UTC day or month each event ends on) and a count of those ending today
 * from now on. Exact for an Admin, for a Member (the secret pages they see, and those they do not), as the clock
 * crosses days, months and years, and as events are written, moved, made secret or public, and deleted.
 */
const queries: { sql: string; parameters: readonly unknown[] }[] = [];
let t: TestApp;
type Who = { user: { id: string }; creds: Credentials };
let owner: Who;
let member: Who;
let outsider: Who;
/** Every event written, as the test knows it. */
const events: { id: string; start: string; end: string; page: string | null }[] = [];
const pages: Record<'secretSeen' | 'secretUnseen' | 'memberOwn' | 'open', string> = {} as never;
const secret = new Set<string>();

beforeAll(async () => {
  t = await startApp({ storeOptions: { onQuery: (sql, parameters) => queries.push({ sql, parameters }) } });
  [owner, member, outsider] = [await t.member(), await t.member(), await t.member()];
  const config = (await t.call('POST', '/page_configurations', { body: { name: 'Ends' } })).body.id;
  const page = async (who: Who, name: string, privacy: string) =>
    (await t.call('POST', '/pages', { as: who.creds, body: { name, privacy, page_configuration_id: config, user_id: who.user.id } })).body.id as string;
  pages.secretSeen = await page(owner, 'Seen vault', 'secret');
  pages.secretUnseen = await page(owner, 'Unseen vault', 'secret');
  pages.memberOwn = await page(member, 'Own vault', 'secret');
  pages.open = await page(owner, 'Open house', 'public');
  for (const id of [pages.secretSeen, pages.secretUnseen, pages.memberOwn]) secret.add(id);
  // The Member in the first secret page: invited, accepted.
  const invite = await t.call('POST', '/invites', {
    as: owner.creds,
    body: { target_type: 'Page', target_id: pages.secretSeen, user_id: owner.user.id, user_target_ids: [member.user.id] },
  });
  expect((await t.call('PUT', `/invites/${invite.body.success[0].id}/accept`, { as: owner.creds })).status).toBe(200);
});

afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

const create = async (start: string, end: string, page: string | null = null) => {
  const who = page === pages.memberOwn ? member : owner;
  const res = await t.call('POST', '/events', {
    as: who.creds,
    body: { name: `Event ${events.length}`, user_id: who.user.id, start_date: start, end_date: end, ...(page ? { page_id: page } : {}) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  events.push({ id: res.body.id, start: res.body.start_date, end: res.body.end_date, page });
  return res.body.id as string;
};

/** One SQL statement straight to the store (no route moves an event or a page's privacy). */
const raw = async (statement: string, params: unknown[]) => {
  const db = await openRaw(t.file);
  try {
    await db.all(statement, params);
  } finally {
    await db.close();
  }
};

/** Each caller is told the events not yet ended that they may see: all of them, and their total, on one page and on the first of one. */
async function check(now: string) {
  t.clock.set(now);
  const seenBy: [string, Credentials | undefined, (page: string | null) => boolean][] = [
    ['admin', undefined, () => true],
    ['member', member.creds, (page) => page === null || !secret.has(page) || page === pages.secretSeen || page === pages.memberOwn],
    ['outsider', outsider.creds, (page) => page === null || !secret.has(page)],
  ];
  for (const [who, as, sees] of seenBy) {
    const want = events
      .filter((e) => e.end >= now && sees(e.page))
      .map((e) => e.id)
      .sort();
    const all = await t.call('GET', '/events?event_date=current_and_coming&per_page=100', { as });
    expect(all.status).toBe(200);
    expect(all.body.items.map((e: { id: string }) => e.id).sort(), `${who} at ${now}`).toEqual(want);
    expect(all.body.total_items, `${who} at ${now}`).toBe(want.length);
    const first = await t.call('GET', '/events?event_date=current_and_coming&per_page=1', { as });
    expect(first.body.total_items, `${who} at ${now}, one a page`).toBe(want.length);
  }
}

const moments = [
  '2026-11-20T10:00:00.000Z',
  '2026-11-20T12:00:00.000Z',
  '2026-11-20T23:59:59.999Z',
  '2026-11-21T00:00:00.000Z',
  '2026-11-21T00:00:00.001Z',
  '2026-11-21T18:00:00.000Z',
  '2026-11-23T00:00:00.000Z',
  // Across the end of a month and of a year: the days left in the month are kept by day, the months after by month.
  '2026-11-30T23:59:59.999Z',
  '2026-12-01T00:00:00.000Z',
  '2026-12-31T12:00:00.000Z',
  '2027-01-01T00:00:00.000Z',
  '2026-11-20T09:00:00.000Z', // the clock set back
];

describe('GET /events?event_date=current_and_coming of everyone', () => {
  it('totals exactly what it lists, for an Admin and for Members, across days, as events are written, moved, hidden and deleted', async () => {
    try {
      // Ended, ending today before and after the clock, at midnight, on later days; in no page, a public page,
      // a secret page the Member is in, one they made, and one they are not in.
      for (const page of [null, pages.open, pages.secretSeen, pages.memberOwn, pages.secretUnseen]) {
        await create('2026-11-19T08:00:00Z', '2026-11-19T09:00:00Z', page);
        await create('2026-11-20T08:00:00Z', '2026-11-20T09:30:00Z', page);
        await create('2026-11-20T09:00:00Z', '2026-11-20T12:00:00Z', page);
        await create('2026-11-20T22:00:00Z', '2026-11-21T00:00:00Z', page);
        await create('2026-11-20T23:00:00Z', '2026-11-20T23:59:59.999Z', page);
        await create('2026-11-19T20:00:00Z', '2026-11-21T18:00:00Z', page);
        await create('2026-11-25T10:00:00Z', '2026-11-25T11:00:00Z', page);
      }
      await create('2026-11-20T10:00:00Z', '2026-11-20T10:00:00Z');
      // Ending on the last day of the month, on the first of the next, later in it, at the turn of the year, months on.
      for (const page of [null, pages.secretSeen, pages.secretUnseen])
        for (const end of ['2026-11-30T23:00:00Z', '2026-12-01T00:00:00Z', '2026-12-20T10:00:00Z', '2027-01-01T00:00:00Z', '2027-06-15T10:00:00Z'])
          await create('2026-11-19T08:00:00Z', end, page);
      for (const now of moments) await check(now);

      // Written while the clock stands: today, tomorrow.
      await check('2026-11-20T10:00:00.000Z');
      await create('2026-11-20T10:30:00Z', '2026-11-20T11:00:00Z', pages.secretUnseen);
      await create('2026-11-21T10:30:00Z', '2026-11-21T11:00:00Z', pages.secretSeen);
      await check('2026-11-20T10:00:00.000Z');

      // Ends moved: from a later day to today, from today to a later day, from the past to the future (longer
      // than any event before it: the list's bound moves with it).
      const moves: [number, string][] = [
        [6, '2026-11-20T11:00:00.000Z'],
        [9, '2026-11-24T00:00:00.000Z'],
        [14, '2026-11-30T12:00:00.000Z'],
        // From the end of this month to a later month, and from next year to this month.
        [36, '2027-03-01T10:00:00.000Z'],
        [40, '2026-11-29T10:00:00.000Z'],
      ];
      for (const [index, end] of moves) {
        await raw('update events set end_date = ? where id = ?', [end, events[index]!.id]);
        events[index]!.end = end;
        for (const now of moments) await check(now);
      }

      // A secret page made public and back, a public one made secret and back.
      for (const [id, privacy] of [
        [pages.secretUnseen, 'public'],
        [pages.open, 'secret'],
        [pages.secretUnseen, 'secret'],
        [pages.open, 'public'],
      ] as const) {
        await raw('update pages set privacy = ? where id = ?', [privacy, id]);
        if (privacy === 'secret') secret.add(id);
        else secret.delete(id);
        for (const now of moments.slice(0, 4)) await check(now);
      }

      // Deleted: one ending today, one on a later day, one of a secret page.
      for (const index of [2, 5, 20]) {
        await raw('delete from events where id = ?', [events[index]!.id]);
        events.splice(index, 1);
      }
      for (const now of moments) await check(now);
      expect(await t.store.checkCounts()).toEqual([]);
    } finally {
      t.clock.set('2026-11-20T10:00:00.000Z');
    }
  });

  it('reads its total from a range of kept counts and one day of an index, as an index walk', async () => {
    queries.length = 0;
    for (const as of [undefined, member.creds])
      for (const paging of ['per_page=1', 'per_page=1&page=2'])
        expect((await t.call('GET', `/events?event_date=current_and_coming&${paging}`, { as })).status).toBe(200);
    const selects = [...new Map(queries.filter((q) => /^\s*select/i.test(q.sql)).map((q) => [q.sql, q])).values()];
    const totals = selects.filter((q) => q.sql.includes('list_counts where key >'));
    expect(totals.length).toBeGreaterThanOrEqual(2);
    expect(await badPlans(t.file, selects)).toEqual([]);
    if (t.file.startsWith('postgres')) return;
    // SQLite: no index read whole either (a SCAN of an index is every event), and the day's count on its index.
    const db = await openRaw(t.file, { readonly: true });
    try {
      for (const { sql, parameters } of totals) {
        const plan = (await db.all<{ detail: string }>(`explain query plan ${sql}`, [...parameters])).map((p) => p.detail);
        expect(plan.filter((d) => /^SCAN (?!w\d+$|CONSTANT ROW$)/.test(d)), sql).toEqual([]);
        expect(plan.some((d) => /USING COVERING INDEX events_end_secret \(end_date>\? AND end_date<\?\)/.test(d)), plan.join('\n')).toBe(true);
        expect(plan.some((d) => /list_counts USING PRIMARY KEY \(key>\? AND key<\?\)/.test(d)), plan.join('\n')).toBe(true);
      }
    } finally {
      await db.close();
    }
  });

  it.each([
    ['by month', '0038', 'events_end_month', eventEndMonths],
    ['by day', '0033', 'events_end', eventEnds],
  ] as const)('are counted %s for the events already written by migration %s, which may run again', async (_by, _number, list, migration) => {
    await raw(`delete from list_counts where key > '${list}|' and key < '${list}}'`, []);
    const drift = await t.store.checkCounts();
    expect(drift.length).toBeGreaterThan(0);
    expect(drift.every((d) => d.key.startsWith(`${list}|`) && d.kept === 0)).toBe(true);
    for (const _run of [0, 1]) {
      await migration.up(t.store.db);
      expect(await t.store.checkCounts()).toEqual([]);
    }
    for (const now of moments) await check(now);
  });

  // Last: it leaves more events than a check's one page of 100.
  it('reads a few dozen kept counts however far ahead events end (the days left in this month, then months)', async () => {
    t.clock.set('2026-11-20T10:00:00.000Z');
    // 120 events ending on 120 days of the next year: 120 keys by day, 12 by month.
    for (let i = 0; i < 120; i++) {
      const end = new Date(Date.parse('2027-01-01T10:00:00Z') + i * 3 * 86_400_000).toISOString();
      await create('2026-11-19T08:00:00Z', end, i % 3 === 0 ? pages.secretUnseen : null);
    }
    for (const as of [undefined, member.creds]) {
      queries.length = 0;
      const res = await t.call('GET', '/events?event_date=current_and_coming&per_page=1', { as });
      expect(res.status).toBe(200);
      // The ranges of kept counts the total adds up: its parameters `key > after and key < before`, in pairs.
      const total = queries.find((q) => q.sql.includes('list_counts where key >'))!;
      const bounds = total.parameters.filter((p): p is string => typeof p === 'string' && p.startsWith('events_end'));
      expect(bounds.length % 2).toBe(0);
      const db = await openRaw(t.file, { readonly: true });
      let read = 0;
      try {
        for (let i = 0; i < bounds.length; i += 2)
          read += Number((await db.all<{ n: number }>('select count(*) as n from list_counts where key > ? and key < ?', [bounds[i], bounds[i + 1]]))[0]!.n);
      } finally {
        await db.close();
      }
      expect(read, `${as ? 'a Member' : 'an Admin'}: ${bounds.join(' ')}`).toBeGreaterThan(0);
      expect(read, `${as ? 'a Member' : 'an Admin'}: ${bounds.join(' ')}`).toBeLessThanOrEqual(45);
    }
  });
});
