import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { removeDir, type Credentials } from '../helpers/server.js';
import { onPostgres } from '../helpers/store-target.js';

/**
 * PostgreSQL plans agora's statements once, generically, from its statistics of the tables: the plan tests
 * (flat-cost) show that an index walk exists, this one that the planner takes it on a community it has analysed,
 * and that a list's total does not read what its first page does not need.
 * An author with 2,000 statuses in 400 public pages, a reader who follows them, nobody suspended, no events and
 * then a few: the first page of the author's statuses, and of the reader's stream, read a page of rows, not the
 * author's every status (an anti-join with an empty table, the suspensions or the events, made the planner expect
 * no row to pass, so it read and sorted them all) nor every public page (an `exists` under an `or`, hashed whole).
 */
const STATUSES = 2000;
const PAGES = 400;
const queries: { text: string; values: readonly unknown[] }[] = [];
let t: TestApp;
let reader: { user: { id: string }; creds: Credentials };
let author: { user: { id: string } };

/**
 * Runs an insert of the rows numbered 1 to n as statements of 200 rows, each its own transaction. The counting
 * triggers move the same few keys for every row, and PostgreSQL keeps each version of a row updated in a
 * transaction until it commits: one statement of 2,000 rows walked ever longer chains of them (the 2,000 reports
 * alone took half a minute).
 */
async function inSlices(n: number, insert: (from: number, to: number) => { execute(db: typeof t.store.db): Promise<unknown> }) {
  for (let from = 1; from <= n; from += 200) await insert(from, Math.min(n, from + 199)).execute(t.store.db);
}

beforeAll(async () => {
  if (!onPostgres) return;
  t = await startApp({ storeOptions: { onQuery: (text, values) => queries.push({ text, values }) } });
  reader = await t.member();
  author = await t.member();
  const config = (await t.call('POST', '/page_configurations', { body: { name: 'Estimates' } })).body.id as string;
  const follow = await t.call('POST', '/follows', { as: reader.creds, body: { user_id: reader.user.id, followable_type: 'User', followable_id: author.user.id } });
  expect(follow.status, JSON.stringify(follow.body)).toBe(201);
  // Written straight into the tables (the kept counts' triggers run as for any write), ids older than the API's.
  const now = new Date().toISOString();
  await sql`insert into pages (id, name, slug, description, privacy, page_configuration_id, user_id, created_at, updated_at)
    select lpad(to_hex(g), 32, '0'), 'Page ' || g, 'estimates-' || g, null, 'public', ${config}, ${author.user.id}, ${now}, ${now}
    from generate_series(1, ${PAGES}) g`.execute(t.store.db);
  await inSlices(STATUSES, (from, to) => sql`insert into statuses (id, user_id, content, page_id, event_id, comments_count, likes_count, created_at, updated_at)
    select lpad(to_hex(100000 + g), 32, '0'), ${author.user.id}, 'Status ' || g, case when g % 10 = 0 then null else lpad(to_hex(1 + g % ${PAGES}), 32, '0') end,
      null, 0, 0, ${now}, ${now}
    from generate_series(${from}::int, ${to}::int) g`);
}, 60_000);
afterAll(async () => {
  await t?.close();
  if (t) removeDir(t.dir);
});

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

/**
 * How many rows of each table the first page's statement read, run as agora runs it (a generic plan of the
 * prepared statement, on a connection of the store): the rows each scan answered and those its filter dropped,
 * over all its loops.
 */
async function rowsRead(url: string): Promise<Record<string, number>> {
  queries.length = 0;
  const res = await t.call('GET', url, { as: reader.creds });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.items.length).toBe(25);
  const page = queries.filter((q) => /^select/.test(q.text) && q.text.includes(' limit ')).at(-1)!;
  const literal = (v: unknown) => (typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
  // On one of the store's own connections, with its settings; a generic plan, as the named statement gets.
  return t.store.db.connection().execute(async (conn) => {
    await sql.raw(`prepare estimated as ${page.text}`).execute(conn);
    try {
      const { rows } = await sql.raw<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`explain (analyze, format json) execute estimated(${page.values.map(literal).join(', ')})`).execute(conn);
      const read: Record<string, number> = {};
      for (const node of nodes(rows[0]!['QUERY PLAN'][0]!.Plan))
        if (node['Relation Name'])
          read[node['Relation Name']] = (read[node['Relation Name']] ?? 0) + (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'];
      return read;
    } finally {
      await sql`deallocate estimated`.execute(conn);
    }
  });
}

describe('PostgreSQL, on a community it has analysed', () => {
  it.skipIf(!onPostgres)("walks an author's statuses to the first page, and a stream's followed user's, with events or none [runs with AGORA_TEST_DB]", async () => {
    for (const events of [0, 3]) {
      // A few events, each with a status in its conversation: every table the rule looks in has rows (the suspensions
      // excepted, as in most communities); before them, the events' table is empty too.
      for (let i = 0; i < events; i++) {
        const event = await t.call('POST', '/events', {
          as: reader.creds,
          body: { name: `Meet ${i}`, user_id: reader.user.id, start_date: '2031-01-01T10:00:00Z', end_date: '2031-01-01T12:00:00Z' },
        });
        expect(event.status, JSON.stringify(event.body)).toBe(201);
        const said = await t.call('POST', '/statuses', { as: reader.creds, body: { user_id: reader.user.id, event_id: event.body.id, content: `about ${i}` } });
        expect(said.status, JSON.stringify(said.body)).toBe(201);
      }
      await sql`analyze`.execute(t.store.db);
      const statuses = await rowsRead(`/statuses?user_id=${author.user.id}&per_page=25`);
      expect(statuses.statuses, `${events} events`).toBeLessThan(100);
      const stream = await rowsRead(`/users/${reader.user.id}/stream?per_page=25`);
      expect(stream.statuses, `${events} events`).toBeLessThan(100);
      expect(stream.pages ?? 0, `${events} events`).toBeLessThan(100);
    }
  });

  it.skipIf(!onPostgres)('walks a skewed key to the first page: a popular page, status or follower among few [runs with AGORA_TEST_DB]', async () => {
    // 2,000 users, each following two pages and liking and commenting on a few statuses; the first 300 of them also
    // follow the first page, and like and comment on one status; the author follows 300 pages; the first 1,000 post
    // in the first page; 300 ask to join the reader's private page, are invited to it, and answer yes to their event;
    // the reader reports 300 statuses. Every other page, status, event and user has a few or none.
    const now = new Date().toISOString();
    const members = (await sql<{ id: string }>`select id from permission_sets where system_key = 'members'`.execute(t.store.db)).rows[0]!.id;
    const page = (n: number) => n.toString(16).padStart(32, '0');
    const status = '9'.padEnd(32, '0');
    await sql`insert into statuses (id, user_id, content, page_id, event_id, comments_count, likes_count, created_at, updated_at)
      values (${status}, ${author.user.id}, 'Popular', ${page(1)}, null, 300, 300, ${now}, ${now})`.execute(t.store.db);
    await sql`insert into users (id, first_name, last_name, nickname, nickname_key, email, password_hash, permission_set_id, slug,
        conditions_accepted_at, confidentiality_accepted_at, created_at, updated_at)
      select 'f' || lpad(to_hex(g), 31, '0'), 'Fan', 'Number ' || g, 'fan' || g, 'fan' || g, 'fan' || g || '@example.org', 'x', ${members},
        'fan' || g, ${now}, ${now}, ${now}, ${now}
      from generate_series(1, 2000) g`.execute(t.store.db);
    const fans = sql`(select id, row_number() over (order by id) as n from users where nickname like 'fan%')`;
    // Everyone's few: two pages followed, two statuses liked, one commented on (the author's, spread over them).
    for (const k of [1, 2]) {
      await inSlices(2000, (from, to) => sql`insert into follows (id, user_id, followable_type, followable_id, created_at)
        select ${`a${k}`} || substr(u.id, 3), u.id, 'Page', lpad(to_hex(2 + (u.n + ${k * 7}) % ${PAGES - 1}), 32, '0'), ${now} from ${fans} u
        where u.n between ${from} and ${to}`);
      await sql`insert into likes (id, user_id, target_type, target_id, created_at)
        select ${`c${k}`} || substr(u.id, 3), u.id, 'Status', lpad(to_hex(100001 + (u.n + ${k * 7}) % ${STATUSES}), 32, '0'), ${now} from ${fans} u`.execute(t.store.db);
    }
    await sql`insert into comments (id, status_id, user_id, content, likes_count, created_at, updated_at)
      select 'd1' || substr(u.id, 3), lpad(to_hex(100001 + u.n % ${STATUSES}), 32, '0'), u.id, 'Nice', 0, ${now}, ${now} from ${fans} u`.execute(t.store.db);
    // The popular page, status and follower.
    const popular = sql`(select id from ${fans} f where f.n <= 300)`;
    await sql`insert into follows (id, user_id, followable_type, followable_id, created_at)
      select 'a0' || substr(u.id, 3), u.id, 'Page', ${page(1)}, ${now} from ${popular} u`.execute(t.store.db);
    await sql`insert into follows (id, user_id, followable_type, followable_id, created_at)
      select 'b' || lpad(to_hex(g), 31, '0'), ${author.user.id}, 'Page', lpad(to_hex(g), 32, '0'), ${now} from generate_series(1, 300) g`.execute(t.store.db);
    await sql`insert into likes (id, user_id, target_type, target_id, created_at) select 'c0' || substr(u.id, 3), u.id, 'Status', ${status}, ${now} from ${popular} u`.execute(
      t.store.db,
    );
    await sql`insert into comments (id, status_id, user_id, content, likes_count, created_at, updated_at)
      select 'd0' || substr(u.id, 3), ${status}, u.id, 'Me too', 0, ${now}, ${now} from ${popular} u`.execute(t.store.db);
    await inSlices(1000, (from, to) => sql`insert into statuses (id, user_id, content, page_id, event_id, comments_count, likes_count, created_at, updated_at)
      select 'e' || substr(u.id, 3), u.id, 'More', ${page(1)}, null, 0, 0, ${now}, ${now} from ${fans} u where u.n between ${from} and ${to}`);
    await sql`insert into follows (id, user_id, followable_type, followable_id, created_at) values ('r0' || ${reader.user.id.slice(2)}, ${reader.user.id}, 'Page', ${page(1)}, ${now})`.execute(
      t.store.db,
    );
    // Three of the popular status's commenters suspended: their comments are hidden, and taken off its count.
    await sql`insert into suspensions (user_id, reason, until, created_at, created_by)
      select id, 'spam', null, ${now}, ${author.user.id} from ${fans} f where f.n in (5, 50, 250)`.execute(t.store.db);
    await sql`analyze`.execute(t.store.db);
    // Access requests and answers: 300 to the reader's private page and event, 100 to each of 17 of the author's.
    const config = (await sql<{ id: string }>`select page_configuration_id as id from pages where id = ${page(1)}`.execute(t.store.db)).rows[0]!.id;
    await sql`insert into pages (id, name, slug, description, privacy, page_configuration_id, user_id, created_at, updated_at)
      select lpad(to_hex(1000 + g), 32, '0'), 'Closed ' || g, 'closed-' || g, null, 'private', ${config}, case when g = 0 then ${reader.user.id} else ${author.user.id} end,
        ${now}, ${now} from generate_series(0, 17) g`.execute(t.store.db);
    await sql`insert into events (id, name, slug, description, user_id, page_id, start_date, end_date, places_limit, attendees_count, tickets, created_at, updated_at)
      select lpad(to_hex(2000 + g), 32, '0'), 'Fair ' || g, 'fair-' || g, null, case when g = 0 then ${reader.user.id} else ${author.user.id} end, null,
        '2031-02-01T10:00:00.000Z', '2031-02-01T12:00:00.000Z', null, 0, '[]', ${now}, ${now} from generate_series(0, 17) g`.execute(t.store.db);
    const place = (base: number) => sql`lpad(to_hex(${base} + case when u.n <= 300 then 0 else 1 + u.n % 17 end), 32, '0')`;
    await inSlices(2000, (from, to) => sql`insert into page_access_requests (id, page_id, user_id, state, is_validate, created_at, updated_at)
      select 'g' || substr(u.id, 2), ${place(1000)}, u.id, 'waiting', 0, ${now}, ${now} from ${fans} u where u.n between ${from} and ${to}`);
    await inSlices(2000, (from, to) => sql`insert into invites (id, target_type, target_id, user_id, user_target_id, state, is_validate, is_accepted, created_at, updated_at)
      select 'i' || substr(u.id, 2), 'Page', ${place(1000)}, ${author.user.id}, u.id, 'waiting', null, 0, ${now}, ${now} from ${fans} u where u.n between ${from} and ${to}`);
    await inSlices(2000, (from, to) => sql`insert into event_attendances (id, event_id, user_id, answer, created_at, updated_at)
      select 'h' || substr(u.id, 2), ${place(2000)}, u.id, 'yes', ${now}, ${now} from ${fans} u where u.n between ${from} and ${to}`);
    // Reports: the reader's of 300 of the author's statuses, and one by each of the others.
    await inSlices(2000, (from, to) => sql`insert into reports (id, user_id, target_type, target_id, target_user_id, page_id, page_owner_id, excerpt, reason, comment, state,
        resolution, resolved_by, created_at, updated_at)
      select 'j' || lpad(to_hex(g), 31, '0'), case when g <= 300 then ${reader.user.id} else (select id from ${fans} f where f.n = g) end, 'Status',
        s.id, s.user_id, s.page_id, ${author.user.id}, s.content, 'spam', null, 'open', null, null, ${now}, ${now}
      from generate_series(${from}::int, ${to}::int) g join statuses s on s.id = lpad(to_hex(100000 + g), 32, '0')`);
    const comments = await t.call('GET', `/statuses/${status}/comments?per_page=1`, { as: reader.creds });
    expect(comments.body.total_items).toBe(297);
    for (const [url, table] of [
      [`/follows?followable_type=Page&followable_id=${page(1)}&per_page=25`, 'follows'],
      [`/follows?user_id=${author.user.id}&per_page=25`, 'follows'],
      [`/statuses/${status}/likes?per_page=25`, 'likes'],
      [`/statuses/${status}/comments?per_page=25`, 'comments'],
      [`/statuses?page_id=${page(1)}&per_page=25`, 'statuses'],
      ['/statuses?per_page=25', 'statuses'],
      [`/users/${reader.user.id}/stream?per_page=25`, 'statuses'],
      [`/pages/${page(1000)}/page_access_requests?per_page=25`, 'page_access_requests'],
      ['/page_access_requests?state=waiting&per_page=25', 'page_access_requests'],
      [`/pages/${page(1000)}/invites?per_page=25`, 'invites'],
      [`/invites?target_id=${page(1000)}&state=waiting&per_page=25`, 'invites'],
      [`/page_access_requests?page_id=${page(1000)}&state=waiting&per_page=25`, 'page_access_requests'],
      [`/reports?user_id=${reader.user.id}&per_page=25`, 'reports'],
      ['/reports?state=open&per_page=25', 'reports'],
      ['/reports?target_type=Status&per_page=25', 'reports'],
      [`/events/${page(2000)}/attendees?per_page=25`, 'event_attendances'],
      [`/events/${page(2000)}/attendees?answer=yes&per_page=25`, 'event_attendances'],
    ] as const) {
      const read = await rowsRead(url);
      expect(read[table], url).toBeLessThan(100);
      // The users a page's rows embed, looked up (an invite's two, for each walk's rows): not all 2,300 read.
      expect(read.users ?? 0, url).toBeLessThan(500);
    }
  });
});

