import Database from 'better-sqlite3';
import type { Migration } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { badPlans } from '../helpers/plans.js';
import { removeDir, type Credentials } from '../helpers/server.js';
import { onPostgres, openRaw } from '../helpers/store-target.js';
import { countersFor } from '../../src/store/counters.js';
import { recount, type CounterSpec } from '../../src/store/migrations/counting.js';
import { withStableLimits } from '../../src/store/sqlite.js';
import { flagCounts } from '../../src/store/migrations/0015-flag-counts.js';
import { followPairs } from '../../src/store/migrations/0020-follow-pairs.js';

/**
 * Flat cost per request: every list query the store can produce is an index walk (no table scan, no
 * sort in a temporary B-tree), totals come from kept counts that a recount agrees with, and every list
 * answers a `Link: rel="next"` cursor.
 */
const queries: { sql: string; parameters: readonly unknown[] }[] = [];
let t: TestApp;
type Who = { user: { id: string }; creds: Credentials };
let member: Who;
let other: Who;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startApp({
    storeOptions: { onQuery: (sql, parameters) => queries.push({ sql, parameters }) },
    // The webhook sender makes no attempt (none at a time): the deliveries below are there to be listed, their
    // receivers do not exist. Nor does it look for due deliveries, a query of every webhook each second that is
    // no list's, and would otherwise be recorded among the lists' whenever the walk below outlasts a second.
    webhooks: { concurrency: 0 },
  });
  member = await t.member();
  other = await t.member();
  const config = await t.call('POST', '/page_configurations', { body: { name: 'Club' } });
  ids.config = config.body.id;
  // Two of everything (the ids of the first kept for the filters): a page number past a list's end answers
  // from the kept count without a walk, so a deep page (`per_page=1&page=2`) walks only a list of two or more.
  for (const round of [0, 1]) {
    const mine: Record<string, string> = {};
    for (const privacy of ['public', 'private', 'secret']) {
      const page = await t.call('POST', '/pages', {
        as: other.creds,
        body: { name: `${privacy} page ${round}`, page_configuration_id: ids.config, privacy, user_id: other.user.id },
      });
      mine[privacy] = page.body.id;
    }
    await t.call('POST', '/follows', { as: member.creds, body: { user_id: member.user.id, followable_type: 'Page', followable_id: mine.public } });
    await t.call('POST', '/invites', { as: other.creds, body: { target_type: 'Page', target_id: mine.private, user_id: other.user.id, user_target_ids: [member.user.id] } });
    const request = await t.call('POST', '/page_access_requests', { as: member.creds, body: { page_id: mine.private, user_id: member.user.id } });
    mine.request = request.body.id;
    const event = await t.call('POST', '/events', {
      as: other.creds,
      // Two events at different times: the dated lists have a deep page and a cursor too.
      body: {
        name: `Fair ${round}`,
        user_id: other.user.id,
        page_id: ids.public ?? mine.public,
        start_date: round ? '2026-12-01T18:00:00Z' : '2026-12-01T10:00:00Z',
        end_date: round ? '2026-12-01T20:00:00Z' : '2026-12-01T12:00:00Z',
      },
    });
    mine.event = event.body.id;
    await t.call('PUT', `/events/${mine.event}/attendance`, { as: member.creds, body: { user_id: member.user.id, answer: 'yes' } });
    const status = await t.call('POST', '/statuses', { as: other.creds, body: { user_id: other.user.id, content: `hello ${round}`, page_id: ids.public ?? mine.public } });
    mine.status = status.body.id;
    await t.call('POST', '/comments', { as: member.creds, body: { user_id: member.user.id, status_id: ids.status ?? mine.status, content: `hi ${round}` } });
    if (round === 0) Object.assign(ids, mine);
    else ids.status2 = mine.status!;
  }
  // A third user, so that lists of a page's requests and invites, an event's attendees and a user's
  // follows of users hold two too; and the Member in two of the other's secret pages (invited, accepted).
  const third = await t.member();
  // Two likes of the first status: its likes list has a deep page and a cursor.
  for (const who of [member, third])
    expect((await t.call('POST', '/likes', { as: who.creds, body: { user_id: who.user.id, status_id: ids.status } })).status).toBe(201);
  await t.call('POST', '/page_configurations', { body: { name: 'Club 2' } });
  for (const followed of [other, third])
    await t.call('POST', '/follows', { as: member.creds, body: { user_id: member.user.id, followable_type: 'User', followable_id: followed.user.id } });
  await t.call('POST', '/page_access_requests', { as: third.creds, body: { page_id: ids.private, user_id: third.user.id } });
  await t.call('POST', '/invites', { as: other.creds, body: { target_type: 'Page', target_id: ids.private, user_id: other.user.id, user_target_ids: [third.user.id] } });
  // Reports: the Member's of both statuses and the third's of the first, so that a reporter's and a target's
  // reports are two.
  for (const [who, status] of [[member, ids.status], [member, ids.status2], [third, ids.status]] as const) {
    const report = await t.call('POST', '/reports', { as: who.creds, body: { user_id: who.user.id, target_type: 'Status', target_id: status, reason: 'spam' } });
    expect(report.status, JSON.stringify(report.body)).toBe(201);
  }
  // Two Members suspended (with nothing of their own), so that the suspended users' list has a deep page too.
  for (const _round of [0, 1]) {
    const suspended = await t.member();
    expect((await t.call('PUT', `/users/${suspended.user.id}/suspension`, { body: { reason: 'flat cost' } })).status).toBe(200);
  }
  for (const who of [other, third])
    await t.call('PUT', `/events/${ids.event}/attendance`, { as: who.creds, body: { user_id: who.user.id, answer: 'yes' } });
  for (const round of [0, 1]) {
    const secret = await t.call('POST', '/pages', {
      as: other.creds,
      body: { name: `secret page for two ${round}`, page_configuration_id: ids.config, privacy: 'secret', user_id: other.user.id },
    });
    const invite = await t.call('POST', '/invites', {
      as: other.creds,
      body: { target_type: 'Page', target_id: secret.body.id, user_id: other.user.id, user_target_ids: [member.user.id] },
    });
    const inviteId = invite.body.success[0].id;
    expect((await t.call('PUT', `/invites/${inviteId}/accept`, { as: other.creds })).status).toBe(200);
    if (round === 0) ids.secretSeen = secret.body.id;
  }
  // Two webhooks, so that their list has a deep page too, each for an invite deleted, at a reserved name
  // (RFC 2606): their deliveries are written, never tried (the sender holds them, see `startApp` above).
  for (const round of [0, 1]) {
    const hook = await t.call('POST', '/webhooks', { body: { url: `https://receiver.example/flat-cost/${round}`, events: ['invite.deleted'] } });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    if (round === 0) ids.hook = hook.body.id;
  }
  // A page of the Member's own, so that their moderation queue holds two too: the other's request to join it
  // and an invite of the third. Before that, two invites of the third withdrawn (the pair may be invited again
  // once its invite is gone): two deliveries to each webhook, so that a webhook's deliveries have a deep page.
  const club = await t.call('POST', '/pages', {
    as: member.creds,
    body: { name: 'Member club', page_configuration_id: ids.config, privacy: 'private', user_id: member.user.id },
  });
  const inviteToClub = async () => {
    const invite = await t.call('POST', '/invites', {
      as: member.creds,
      body: { target_type: 'Page', target_id: club.body.id, user_id: member.user.id, user_target_ids: [third.user.id] },
    });
    expect(invite.status, JSON.stringify(invite.body)).toBe(200);
    return invite.body.success[0].id as string;
  };
  for (const _round of [0, 1]) expect((await t.call('DELETE', `/invites/${await inviteToClub()}`, { as: member.creds })).status).toBe(204);
  await inviteToClub();
  const asked = await t.call('POST', '/page_access_requests', { as: other.creds, body: { page_id: club.body.id, user_id: other.user.id } });
  expect(asked.status, JSON.stringify(asked.body)).toBe(201);
  // One delivery sent again twice: two audit entries alike in every column the log filters by (actor, action,
  // target type and id; all of a test clock's time), so that every combination of its filters has a deep page.
  const deliveries = await t.call('GET', `/webhooks/${ids.hook}/deliveries`);
  expect(deliveries.body.total_items, JSON.stringify(deliveries.body)).toBe(2);
  ids.delivery = deliveries.body.items[0].id;
  for (const _round of [0, 1]) expect((await t.call('POST', `/webhook_deliveries/${ids.delivery}/redeliver`)).status).toBe(202);
  await t.app.fanOut.drain();
});

afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

/** Every combination of the given filters, as query strings. */
function combinations(filters: Record<string, string>): string[] {
  const names = Object.keys(filters);
  return Array.from({ length: 1 << names.length }, (_, mask) =>
    names
      .filter((_, i) => mask & (1 << i))
      .map((n) => `${n}=${encodeURIComponent(filters[n]!)}`)
      .join('&'),
  );
}

const lists = () => [
  ...combinations({ page_configuration_id: ids.config!, owner: other.user.id, privacy: 'secret' }).map((q) => `/pages?${q}`),
  ...combinations({ privacy: 'public' }).map((q) => `/pages?${q}`),
  '/page_configurations?',
  ...combinations({ role: 'Members', nickname: 'nobody', suspended: 'true' }).map((q) => `/users?${q}`),
  '/users?suspended=false',
  ...combinations({ followable_type: 'Page', followable_id: ids.public!, user_id: member.user.id }).map((q) => `/follows?${q}`),
  ...combinations({ followable_type: 'User' }).map((q) => `/follows?${q}`),
  ...combinations({ page_id: ids.private!, user_id: member.user.id, state: 'waiting' }).map((q) => `/page_access_requests?${q}`),
  `/pages/${ids.private}/page_access_requests?`,
  ...combinations({ target_id: ids.private!, user_id: other.user.id, user_target_id: member.user.id, state: 'waiting' }).map(
    (q) => `/invites?${q}`,
  ),
  `/pages/${ids.private}/invites?`,
  ...combinations({ owner: other.user.id, event_date: 'current_and_coming', page_id: ids.public! }).map((q) => `/events?${q}`),
  '/events?date=2026-12-01',
  ...combinations({ answer: 'yes' }).map((q) => `/events/${ids.event}/attendees?${q}`),
  `/statuses/${ids.status}/comments?`,
  ...combinations({ user_id: member.user.id }).map((q) => `/statuses/${ids.status}/likes?${q}`),
  ...combinations({ page_id: ids.public!, user_id: member.user.id }).map((q) => `/statuses?${q}`),
  `/statuses?event_id=${ids.event}`,
  `/users/${member.user.id}/stream?`,
  ...combinations({ state: 'open', target_type: 'Status', target_id: ids.status!, user_id: member.user.id }).map((q) => `/reports?${q}`),
  ...combinations({ status: 'unseen' }).map((q) => `/users/${member.user.id}/notifications?${q}`),
  ...combinations({ status: 'unseen' }).map((q) => `/users/${other.user.id}/notifications?${q}`),
  '/webhooks?',
  `/webhooks/${ids.hook}/deliveries?`,
  '/permission_sets?',
  '/moderation_queue?',
  ...combinations({ user_id: member.user.id }).map((q) => `/api_keys?${q}`),
  ...combinations({ target_type: 'Status', user_id: member.user.id, removed_by: t.admin.id }).map((q) => `/removed_content?${q}`),
  ...combinations({
    actor_id: t.admin.id,
    action: 'webhook_delivery.redeliver',
    target_type: 'webhook_delivery',
    target_id: ids.delivery!,
    since: '2026-11-20',
    until: '2026-11-21T00:00:00Z',
  }).map((q) => `/audit_log?${q}`),
];

/**
 * A search of a unique index by every one of its columns: one row at most (a partial index is used only where
 * the query's filter implies the index's own).
 */
function atMostOneRow(raw: Database.Database, detail: string): boolean {
  const m = /^SEARCH \w+(?: AS \w+)? USING (?:COVERING )?INDEX (\w+) \((.*)\)$/.exec(detail);
  if (!m) return false;
  const [, index, constraint] = m;
  const table = raw.prepare(`select tbl_name from sqlite_master where type = 'index' and name = ?`).pluck().get(index) as string;
  const indexColumns = (raw.prepare(`pragma index_info(${index})`).all() as { name: string }[]).map((c) => c.name);
  const unique = (raw.prepare(`pragma index_list(${table})`).all() as { name: string; unique: number }[]).find((i) => i.name === index)?.unique;
  return Boolean(unique) && indexColumns.every((c) => new RegExp(`\\b${c}=`).test(constraint!));
}

/**
 * The columns a walk's filter and order read that its index does not hold: each entry the walk passes
 * would then be tested on the row (a search that barely narrows). A lookup of one row by a unique index,
 * and a query that reads whole rows anyway (a page's rows, fetched from where the page starts, `limit`ed),
 * are not walks of that kind.
 */
interface PlanStep {
  id: number;
  parent: number;
  detail: string;
}

/** The steps of a plan that are a scalar subquery's (its header and everything under it). */
function scalarSubquerySteps(plan: PlanStep[]): Set<number> {
  const inside = new Set<number>();
  for (const step of plan) if (/^(CORRELATED )?SCALAR SUBQUERY/.test(step.detail) || inside.has(step.parent)) inside.add(step.id);
  return inside;
}

function uncovered(raw: Database.Database, sql: string, detail: string): string[] {
  const m = /^(?:SEARCH|SCAN) (\w+)(?: AS (\w+))? USING (COVERING )?INDEX (\w+)(?: \((.*)\))?$/.exec(detail);
  if (!m) return [];
  sql = sql.replace(/, \(.*?\) as "__total"/, '');
  const [, table, alias = table, covering, index] = m;
  const indexColumns = (raw.prepare(`pragma index_info(${index})`).all() as { name: string }[]).map((c) => c.name);
  if (atMostOneRow(raw, detail)) return [];
  // (A page's rows read whole: `select "pages".*`, or a column its index lacks named in the select list.)
  const selected = /^select (.*?) from /.exec(sql)?.[1] ?? '';
  const readsRows = [...selected.matchAll(new RegExp(`"${alias}"\\."(\\w+)"`, 'g'))].some((r) => !indexColumns.includes(r[1]!));
  if (!covering && /\blimit \?/.test(sql) && (readsRows || new RegExp(`select "${alias}"\\.\\*|select \\*`).test(sql))) return [];
  const columns = new Set((raw.prepare(`pragma table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
  // What the query reads of this table outside its select lists: its filters, joins and order (for a
  // compound select, the part this walk serves: the one its index covers best).
  const parts = sql.split(/ union (?:all )?/).map((part) => {
    const body = part.replace(/select (.*?) from /g, 'select from ');
    const read = new Set([...body.matchAll(new RegExp(`"${alias}"\\."(\\w+)"`, 'g'))].map((r) => r[1]!));
    if (!/ join |\(select/.test(body)) for (const r of body.matchAll(/(?<![.\w])"(\w+)"(?!\.)/g)) read.add(r[1]!);
    return [...read].filter((c) => columns.has(c) && !indexColumns.includes(c));
  });
  return parts.reduce((best, part) => (part.length < best.length ? part : best));
}

describe('every list query', () => {
  it('walks an index, as an Admin and as a Member, on the first page, a deep page and after a cursor', async () => {
    queries.length = 0;
    const callers: (Credentials | undefined)[] = [undefined, member.creds];
    for (const url of lists())
      for (const as of callers) {
        // Another user's notifications, the webhooks and their deliveries, and the audit log are the Admin's alone.
        const adminOnly =
          url.startsWith('/webhooks') || url.startsWith('/audit_log') || url.startsWith('/api_keys') || url.startsWith('/removed_content') || (url.includes('/users/') && !url.includes(`/users/${member.user.id}/`));
        const who = adminOnly ? undefined : as;
        for (const paging of ['per_page=1', 'per_page=1&page=2']) {
          const res = await t.call('GET', `${url}&${paging}`, { as: who });
          expect(res.status, `${url} ${JSON.stringify(res.body)}`).toBe(200);
          const link = String(res.headers.link ?? '');
          if (link) {
            const next = /^<\/public-api\/v1([^>]+)>; rel="next"$/.exec(link);
            expect(next, link).not.toBeNull();
            expect((await t.call('GET', next![1]!, { as: who })).status).toBe(200);
          }
        }
      }
    const selects = new Map(queries.filter((q) => /^\s*select/i.test(q.sql)).map((q) => [q.sql, q]));
    expect(selects.size).toBeGreaterThan(50);
    // Deep pages skip over an index too. A page number past a list's end answers from the kept count without
    // a skip, so the lists hold two records here wherever they can without a history of refusals and
    // re-requests (a pair of user and page names one follow, one waiting request or invite): 146 skip shapes,
    // 64 of them the audit log's (each combination of its filters).
    expect([...selects.keys()].filter((q) => / offset /i.test(q)).length).toBeGreaterThanOrEqual(146);
    expect(await badPlans(t.file, [...selects.values()])).toEqual([]);
    // SQLite: an index search must also cover what the query filters and orders by (not leave it to the rows).
    if (!t.file.startsWith('postgres')) {
      const raw = new Database(t.file, { readonly: true });
      try {
        const bad: string[] = [];
        for (const { sql, parameters } of selects.values()) {
          // As the store prepares it (its bound limits written as expressions).
          const plan = raw.prepare(`explain query plan ${withStableLimits(sql)}`).all(...(parameters as unknown[])) as PlanStep[];
          // The total read beside the rows (`__total`: kept counts, or a bounded count) is not the walk: its
          // steps are judged by `badPlans` above, not against the walk's filters and order.
          const ofTotal = scalarSubquerySteps(plan);
          for (const { id, detail } of plan) {
            if (ofTotal.has(id)) continue;
            const missing = uncovered(raw, sql, detail);
            if (missing.length) bad.push(`${detail} leaves ${missing.join(', ')} to the rows\n  in ${sql}`);
          }
          // A walk resumed from a sort key (a cursor, a known position) starts its search there: a search
          // bounded by another of its filters alone would test every entry before it. (A search of the key
          // itself, `id in (…)`: a Member's few secret pages, probes each of them, which is as good.)
          const resume = /\(((?:"\w+"\."\w+"(?:, )?)+)\) (?:>=|>|<=|<) \(/.exec(sql);
          if (resume) {
            const [, alias, last] = /"(\w+)"\."(\w+)"$/.exec(resume[1]!)!;
            // (Or the walk's own table searched by a unique index, every column of it given: one row at most.)
            if (
              !plan.some(
                ({ detail }) =>
                  new RegExp(`^SEARCH .*\\(.*\\b${last}(\\)?[<>]|=\\?)`).test(detail) ||
                  (detail.startsWith(`SEARCH ${alias} `) && atMostOneRow(raw, detail)),
              )
            )
              bad.push(`${plan.map((p) => p.detail).join('; ')} does not start at the resumed key\n  in ${sql}`);
          }
        }
        expect(bad).toEqual([]);
      } finally {
        raw.close();
      }
    }
  });
});

describe('walking a list with the Link cursor', () => {
  it('answers every record once, in order, even when records are created meanwhile', async () => {
    const before = await t.call('GET', '/pages?per_page=100');
    const walked: string[] = [];
    let url: string | undefined = '/pages?per_page=2';
    let created = false;
    while (url) {
      const res = await t.call('GET', url);
      expect(res.status).toBe(200);
      expect(res.body.total_items).toBeGreaterThanOrEqual(before.body.total_items);
      walked.push(...res.body.items.map((p: { id: string }) => p.id));
      if (!created) {
        created = true;
        await t.call('POST', '/pages', {
          body: { name: 'Late page', page_configuration_id: ids.config, privacy: 'public', user_id: t.admin.id },
        });
      }
      const link = res.headers.link as string | undefined;
      url = link ? /^<\/public-api\/v1([^>]+)>/.exec(link)![1] : undefined;
    }
    const after = await t.call('GET', '/pages?per_page=100');
    expect(walked).toEqual(after.body.items.map((p: { id: string }) => p.id));
    expect(new Set(walked).size).toBe(walked.length);
    expect(walked.length).toBe(before.body.total_items + 1);
  });

  it('refuses cursor with page (400) and a cursor it did not give (400)', async () => {
    const first = await t.call('GET', '/pages?per_page=1');
    const cursor = /cursor=([^&>]+)/.exec(first.headers.link as string)![1];
    const both = await t.call('GET', `/pages?per_page=1&page=2&cursor=${cursor}`);
    expect(both.status).toBe(400);
    expect(both.body.error.code).toBe('invalid_query');
    expect((await t.call('GET', '/pages?cursor=not-ours')).status).toBe(400);
    // Another list's cursor (a pages cursor is one key; events and the audit log walk two) is not theirs.
    for (const list of ['/events', '/audit_log', '/moderation_queue']) {
      const res = await t.call('GET', `${list}?cursor=${cursor}`);
      expect(res.status, list).toBe(400);
      expect(res.body.error.code).toBe('invalid_query');
    }
  });

  it('answers no Link on the last page', async () => {
    const res = await t.call('GET', '/pages?per_page=100');
    expect(res.headers.link).toBeUndefined();
  });
});

describe('kept counts', () => {
  it('agree with a recount after every kind of write, and a Member’s totals match their lists', async () => {
    expect(await t.store.checkCounts()).toEqual([]);
    for (const url of lists()) {
      if (url.includes('notifications')) continue;
      const all = await t.call('GET', `${url}&per_page=100`, { as: member.creds });
      if (all.status === 403) continue;
      expect(all.body.total_items, url).toBe(all.body.items.length);
    }
  });

  it('count none for a filter value no row has that a key would read as "any" (`*`) or as a separator (`|`)', async () => {
    for (const url of ['/follows?followable_id=*', '/follows?user_id=*', '/follows?followable_type=Page&followable_id=*', '/pages?owner=*', '/pages?page_configuration_id=a%7C*']) {
      for (const as of [undefined, member.creds]) {
        const res = await t.call('GET', url, { as });
        expect(res.status, url).toBe(200);
        expect([res.body.total_items, res.body.items.length], url).toEqual([0, 0]);
      }
    }
  });

  it('move a page’s follows and events when its privacy changes (written straight to the database: no request changes it)', async () => {
    const page = await t.call('POST', '/pages', {
      as: other.creds,
      body: { name: 'Turning page', page_configuration_id: ids.config, privacy: 'public', user_id: other.user.id },
    });
    await t.call('POST', '/follows', { as: member.creds, body: { user_id: member.user.id, followable_type: 'Page', followable_id: page.body.id } });
    await t.call('POST', '/events', {
      as: other.creds,
      body: { name: 'Turning', user_id: other.user.id, page_id: page.body.id, start_date: '2026-12-02T10:00:00Z', end_date: '2026-12-02T12:00:00Z' },
    });
    // What a Member outside the page is told of its follows and events: total and items, each.
    const outsider = await t.member();
    const seen = async () => {
      const follows = await t.call('GET', `/follows?followable_type=Page&followable_id=${page.body.id}`, { as: outsider.creds });
      const events = await t.call('GET', `/events?page_id=${page.body.id}`, { as: outsider.creds });
      return [follows.status, follows.body.total_items, follows.body.items?.length, events.status, events.body.total_items, events.body.items?.length];
    };
    // The creator's own follow and the member's, the event.
    expect(await seen()).toEqual([200, 2, 2, 200, 1, 1]);
    for (const [privacy, told] of [
      ['secret', [200, 0, 0, 200, 0, 0]],
      ['public', [200, 2, 2, 200, 1, 1]],
    ] as const) {
      const raw = await openRaw(t.file);
      try {
        await raw.all(`update pages set privacy = ? where id = ?`, [privacy, page.body.id]);
      } finally {
        await raw.close();
      }
      expect(await t.store.checkCounts(), privacy).toEqual([]);
      expect(await seen(), privacy).toEqual(told);
    }
  });
});

/**
 * The counts an older agora kept (recounted by its specifications, `older`) written over the kept ones, and then
 * `migration`: the keys this agora does not keep (`notKept`, none before) are kept with no row that this agora
 * counts by them, drift to `agora admin check`, until the migration removes them. `checkOlder` sees those keys.
 */
async function olderCountsMigrated(
  raw: Awaited<ReturnType<typeof openRaw>>,
  older: CounterSpec[],
  notKept: () => Promise<string[]>,
  migration: Migration,
  checkOlder: (keys: string[]) => void,
): Promise<void> {
  expect(await notKept()).toEqual([]);
  for (const spec of older)
    for (const [key, n] of await recount(t.store.db, spec))
      await raw.all(`insert into list_counts (key, n) values (?, ?) on conflict (key) do update set n = excluded.n`, [key, n]);
  const keys = await notKept();
  checkOlder(keys);
  expect((await t.store.checkCounts()).map((d) => d.key).sort()).toEqual(keys);
  await migration.up(t.store.db);
  expect(await notKept()).toEqual([]);
  expect(await t.store.checkCounts()).toEqual([]);
}

describe('kept counts of a flag', () => {
  it('are kept only for rows whose flag is 1, and an older store that kept them at 0 too loses those in migration 0015', async () => {
    // A user's own status reaches their followers (flag 1); one in a private page does not (flag 0).
    const status = await t.call('POST', '/statuses', { as: member.creds, body: { user_id: member.user.id, content: 'Mine' } });
    const inPage = await t.call('POST', '/statuses', { as: other.creds, body: { user_id: other.user.id, content: 'In the page', page_id: ids.private } });
    expect([status.status, inPage.status]).toEqual([201, 201]);
    const specs = countersFor(onPostgres ? 'postgres' : 'sqlite');
    expect(specs.filter((spec) => spec.flag !== undefined).map((spec) => spec.list).sort()).toEqual(['events', 'events_end', 'events_end_month', 'follows', 'statuses']);
    // The lists migration 0015 concerns (the events' ends were counted later, their flag kept at 1 from the first).
    const flagged = specs.filter((spec) => ['events', 'follows', 'statuses'].includes(spec.list));
    const lists = flagged.map((spec) => `key like '${spec.list}|%'`).join(' or ');
    const raw = await openRaw(t.file);
    const atZero = async () =>
      (await raw.all<{ key: string }>(`select key from list_counts where (${lists}) and n <> 0 and key not like '%|*' and key not like '%|1' order by key`)).map((r) => r.key);
    try {
      // What an older agora kept: every combination, the flag at 0 as well.
      await olderCountsMigrated(raw, flagged.map((spec) => ({ ...spec, flag: undefined })), atZero, flagCounts, (older) =>
        expect(older.some((key) => key.startsWith('follows|')) && older.some((key) => key.startsWith('events|')) && older.some((key) => key.startsWith('statuses|'))).toBe(true),
      );
    } finally {
      await raw.close();
    }
    // The lists still count right after it (the triggers made again), a Member's total too (all follows, less
    // those of secret pages, plus those of the secret pages they see): what another Member is shown of them.
    const follows = await t.call('GET', `/follows?user_id=${member.user.id}`, { as: other.creds });
    expect(follows.status).toBe(200);
    expect(follows.body.items.length).toBeGreaterThan(0);
    expect(follows.body.total_items).toBe(follows.body.items.length);
  });
});

describe('kept counts of follows', () => {
  /** Every combination of the follows' filters, for a public page, a secret page, and a user. */
  const followLists = () =>
    [
      { followable_type: 'Page', followable_id: ids.public!, user_id: member.user.id },
      { followable_type: 'Page', followable_id: ids.secretSeen!, user_id: member.user.id },
      { followable_type: 'User', followable_id: other.user.id, user_id: member.user.id },
    ].flatMap((filters) => combinations(filters).map((q) => `/follows?${q}&per_page=100`));
  /** What each caller is told of each list: its total and the records walked, which must agree. */
  const told = async (outsider: Who) => {
    const answers: Record<string, number> = {};
    for (const url of followLists())
      for (const [who, as] of [['admin', undefined], ['member', member.creds], ['owner', other.creds], ['outsider', outsider.creds]] as const) {
        const res = await t.call('GET', url, { as });
        expect(res.status, `${who} ${url}`).toBe(200);
        expect(res.body.total_items, `${who} ${url}`).toBe(res.body.items.length);
        answers[`${who} ${url}`] = res.body.total_items;
      }
    return answers;
  };

  it('keep no count of one user’s follows of one followable, nor of a followable without its type; every total is right, and an older store loses those in migration 0020', async () => {
    const outsider = await t.member();
    const before = await told(outsider);
    // The secret page's follows: its creator's and the Member's, seen by both and by the admin only.
    const ofSecret = `/follows?followable_id=${ids.secretSeen}&per_page=100`;
    expect([before[`admin ${ofSecret}`], before[`member ${ofSecret}`], before[`owner ${ofSecret}`], before[`outsider ${ofSecret}`]]).toEqual([2, 2, 2, 0]);
    const spec = countersFor(onPostgres ? 'postgres' : 'sqlite').find((s) => s.list === 'follows')!;
    const raw = await openRaw(t.file);
    // Keys that fix the followable and the user, or the followable without its type.
    const unkept = async () =>
      (
        await raw.all<{ key: string }>(
          `select key from list_counts where key like 'follows|%' and n <> 0 and ((key like 'follows|*|%' and key not like 'follows|*|*|%') or key not like '%|*|%') order by key`,
        )
      ).map((r) => r.key);
    try {
      // What an older agora kept: every combination.
      await olderCountsMigrated(raw, [{ ...spec, unkept: undefined }], unkept, followPairs, (older) => {
        expect(older).toContain(`follows|Page|${ids.public}|${member.user.id}|*`);
        expect(older).toContain(`follows|*|${ids.secretSeen}|*|1`);
        expect(older).toContain(`follows|User|${other.user.id}|${member.user.id}|*`);
      });
    } finally {
      await raw.close();
    }
    // The lists answer as before, after the migration and after a follow and an unfollow counted by the new triggers.
    expect(await told(outsider)).toEqual(before);
    const followed = await t.call('POST', '/follows', { as: outsider.creds, body: { user_id: outsider.user.id, followable_type: 'User', followable_id: other.user.id } });
    expect(followed.status).toBe(201);
    expect((await t.call('DELETE', `/follows/${followed.body.id}`, { as: outsider.creds })).status).toBe(204);
    expect(await told(outsider)).toEqual(before);
    expect(await t.store.checkCounts()).toEqual([]);
  });
});

describe('agora admin check', () => {
  it('reports a kept count that drifted, exits 1, and --repair writes the recount', async () => {
    const raw = await openRaw(t.file);
    try {
      await raw.all(`update list_counts set n = n + 5 where key = 'pages|*|*|*'`);
    } finally {
      await raw.close();
    }
    const { runCli } = await import('../helpers/cli.js');
    const drifted = await runCli(['admin', 'check', '--db', t.file], { home: t.dir });
    expect(drifted.code).toBe(1);
    expect(drifted.stdout).toMatch(/^pages\|\*\|\*\|\*\tkept \d+\tactual \d+\n$/);
    const repaired = await runCli(['admin', 'check', '--db', t.file, '--repair'], { home: t.dir });
    expect(repaired.code).toBe(0);
    expect(await t.store.checkCounts()).toEqual([]);
  });
});
