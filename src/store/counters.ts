import { sql, type Kysely } from 'kysely';
import { inOwnTransaction, type Dialect } from './dialect.js';
import type { Database } from './schema.js';

/** A counted list: its table and the dimensions its filters and visibility rules use (SQL over the row `r`). */
export interface CounterSpec {
  list: string;
  table: string;
  dims: readonly string[];
  /** A 0/1 dimension the lists read only as 1: keys fixing it are kept only for rows whose flag is 1. */
  flag?: number;
  /**
   * Combinations not kept (bit i: dimension i fixed), answered otherwise: a key every new row would add costs a page
   * written per row and grows the counts with the rows.
   */
  unkept?: (mask: number) => boolean;
}

const pageOwner = (column: string) => `(select p.user_id from pages p where p.id = r.${column})`;

/** The events_end lists: events by the UTC date they end on, cut to `length` characters (a day: 10, a month: 7). */
const eventsEndingBy = (list: string, length: number): CounterSpec => ({
  list,
  table: 'events',
  dims: ['r.secret_page', `substr(r.end_date, 1, ${length})`],
  flag: 0,
  unkept: (mask) => (mask & 0b10) === 0,
});

export const COUNTERS: readonly CounterSpec[] = [
  { list: 'page_configurations', table: 'page_configurations', dims: [] },
  { list: 'pages', table: 'pages', dims: ['r.page_configuration_id', 'r.user_id', 'r.privacy'] },
  { list: 'users', table: 'users', dims: ['r.permission_set_id'] },
  // The page's secrecy is the row's own copy (`secret_page`, kept by triggers): a change moves the row between counts.
  {
    list: 'follows',
    table: 'follows',
    dims: ['r.followable_type', 'r.followable_id', 'r.user_id', `(r.followable_type = 'Page' and r.secret_page)`],
    flag: 3,
    // Not kept: a user's follows of one followable (at most one a type: looked up), and a followable's without its
    // type (the sum of its types': ids are unique across users and pages).
    unkept: (mask) => (mask & 0b10) !== 0 && ((mask & 0b100) !== 0 || (mask & 0b1) === 0),
  },
  {
    list: 'page_access_requests',
    table: 'page_access_requests',
    dims: ['r.page_id', 'r.user_id', 'r.state', pageOwner('page_id')],
  },
  {
    list: 'invites',
    table: 'invites',
    dims: ['r.target_id', 'r.user_id', 'r.user_target_id', 'r.state', pageOwner('target_id')],
  },
  { list: 'events', table: 'events', dims: ['r.user_id', 'r.page_id', 'r.secret_page'], flag: 2 },
  // By the UTC day and month an event ends: `current_and_coming` adds up a few keys instead of counting every event not
  // yet ended. The secrecy first, so each flag's days are one range of keys.
  eventsEndingBy('events_end', 10),
  eventsEndingBy('events_end_month', 7),
  { list: 'event_attendances', table: 'event_attendances', dims: ['r.event_id', 'r.answer'] },
  // The reporter and the page's creator: the two sides of a Member's rule.
  { list: 'reports', table: 'reports', dims: ['r.state', 'r.target_type', 'r.target_id', 'r.user_id', 'r.page_owner_id'] },
  // A target's entries and a time window's are counted on their index instead.
  { list: 'audit_log', table: 'audit_log', dims: ['r.actor_id', 'r.action', 'r.target_type'] },
  // Removed content by type, author and who removed it (migration 0043).
  { list: 'removed_content', table: 'removed_content', dims: ['r.target_type', 'r.user_id', 'r.removed_by'] },
  { list: 'webhooks', table: 'webhooks', dims: [] },
  { list: 'webhook_deliveries', table: 'webhook_deliveries', dims: ['r.webhook_id'] },
  { list: 'permission_sets', table: 'permission_sets', dims: [] },
  // A user's few keys are counted on their index.
  { list: 'api_keys', table: 'api_keys', dims: [] },
  // The flag: a user's own statuses that reach their followers (the stream's part for a followed user).
  {
    list: 'statuses',
    table: 'statuses',
    dims: [
      'r.page_id',
      'r.event_id',
      'r.user_id',
      `(r.event_id is null and (r.page_id is null or coalesce((select p.privacy = 'public' from pages p where p.id = r.page_id), 0)))`,
    ],
    flag: 3,
  },
];

/** PostgreSQL's comparisons are booleans: each flag is a CASE giving 1 or 0, so keys are the same text in both. */
const PG_DIMS: Record<string, readonly string[]> = {
  follows: ['r.followable_type', 'r.followable_id', 'r.user_id', `(case when r.followable_type = 'Page' and r.secret_page = 1 then 1 else 0 end)`],
  statuses: [
    'r.page_id',
    'r.event_id',
    'r.user_id',
    `(case when r.event_id is null and (r.page_id is null or coalesce((select p.privacy = 'public' from pages p where p.id = r.page_id), false)) then 1 else 0 end)`,
  ],
};
const PG_COUNTERS: readonly CounterSpec[] = COUNTERS.map((spec) => ({ ...spec, dims: PG_DIMS[spec.list] ?? spec.dims }));

/** The counted lists with their dimensions written in the dialect's SQL. */
export const countersFor = (dialect: Dialect): readonly CounterSpec[] => (dialect === 'postgres' ? PG_COUNTERS : COUNTERS);

const fixesFlag = (spec: CounterSpec, mask: number) => spec.flag !== undefined && (mask & (1 << spec.flag)) !== 0;
/** Compared as the key writes it: the same text in both dialects. */
const flagIsSet = (value: string) => `coalesce(cast(${value} as text), '') = '1'`;

function keyOf(spec: CounterSpec, mask: number, values: readonly string[]): string {
  const parts = values.map((value, i) => (mask & (1 << i) ? `coalesce(cast(${value} as text), '')` : `'*'`));
  return [`'${spec.list}|'`, ...(parts.length ? [parts.join(` || '|' || `)] : [])].join(' || ');
}

const masks = (spec: CounterSpec) =>
  Array.from({ length: 1 << spec.dims.length }, (_, m) => m).filter((m) => !spec.unkept?.(m));

/** The columns of the row that the dimensions read: an update of one of them moves the row between counts. */
const columnsOf = (spec: CounterSpec) => [
  ...new Set(spec.dims.flatMap((d) => [...d.matchAll(/\br\.(\w+)/g)].map((m) => m[1]!))),
];

export interface Drift {
  key: string;
  kept: number;
  actual: number;
}

const BATCH = 10_000;

/**
 * Every key whose kept count differs from a recount; `repair` writes the recount. In SQL, a list at a time, differences
 * read in batches, so memory stays flat. Each list is one snapshot; with `repair` under the write lock, so no write
 * lands between recount and repair. `onDrift` (awaited) sees each drift instead of collecting them.
 */
export async function checkCounts(
  db: Kysely<Database>,
  dialect: Dialect,
  repair = false,
  onDrift?: (drift: Drift) => void | Promise<void>,
): Promise<Drift[]> {
  const found: Drift[] = [];
  const report = onDrift ?? ((drift: Drift) => void found.push(drift));
  await db.connection().execute(async (conn) => {
    // SQLite: the recount's temporary tables on disk, so memory stays flat.
    const tempStore = dialect === 'sqlite' ? (await sql<{ temp_store: number }>`pragma temp_store`.execute(conn)).rows[0]?.temp_store : undefined;
    if (tempStore !== undefined) await sql`pragma temp_store = file`.execute(conn);
    try {
      await recountEach(conn);
    } finally {
      if (tempStore !== undefined) await sql.raw(`pragma temp_store = ${Number(tempStore)}`).execute(conn);
    }
  });
  return found;

  async function recountEach(conn: Kysely<Database>): Promise<void> {
    const temp = dialect === 'postgres' ? 'pg_temp' : 'temp';
    const pg = dialect === 'postgres';
    const begin = pg ? (repair ? 'begin' : 'begin isolation level repeatable read') : repair ? 'begin immediate' : 'begin';
    for (const spec of countersFor(dialect)) {
      try {
        await inOwnTransaction(conn, begin, async () => {
          if (pg && repair) await sql.raw(`lock table ${spec.table} in share mode`).execute(conn);
          await checkList(conn, spec, repair, report, temp);
        });
      } finally {
        await sql.raw(`drop table if exists ${temp}.agora_recount`).execute(conn);
      }
    }
  }
}

/** Rewrites every kept count and the longest event after a bulk load without the counting triggers (`admin copy`). */
export async function rewriteCountsPg(tx: Kysely<Database>): Promise<void> {
  for (const spec of countersFor('postgres')) {
    await checkList(tx, spec, true, null, 'pg_temp');
    await sql`drop table pg_temp.agora_recount`.execute(tx);
  }
  await sql
    .raw(
      `insert into list_counts (key, n) select 'events.longest_ms', coalesce(max(${longestEventMsPg('')}), 0) from events ` +
        `on conflict (key) do update set n = greatest(list_counts.n, excluded.n)`,
    )
    .execute(tx);
}

/** An event's length in milliseconds, plus one, on PostgreSQL: `row` is `new.` in a trigger, '' over the table. */
export const longestEventMsPg = (row: string) =>
  `(floor(extract(epoch from (${row}end_date::timestamptz - ${row}start_date::timestamptz)) * 1000))::bigint + 1`;

/** The triggers that keep list_counts on PostgreSQL, with their tables: the counters' and the longest event's. */
export const COUNTING_TRIGGERS_PG: readonly { table: string; trigger: string }[] = [
  ...countersFor('postgres').flatMap((spec) =>
    ['insert', 'delete', ...(columnsOf(spec).length ? ['update'] : [])].map((event) => ({ table: spec.table, trigger: `${spec.list}_counts_${event}` })),
  ),
  { table: 'events', trigger: 'events_longest' },
  { table: 'events', trigger: 'events_longest_update' },
];

async function checkList(
  conn: Kysely<Database>,
  spec: CounterSpec,
  repair: boolean,
  /** null: the differences are not listed (a repair that need not say what it repaired). */
  report: ((drift: Drift) => void | Promise<void>) | null,
  temp: 'temp' | 'pg_temp',
): Promise<void> {
  const T = (name: string) => sql.raw(`${temp}.${name}`);
  await sql`drop table if exists ${T('agora_recount')}`.execute(conn);
  await sql`create temp table agora_recount (key text primary key, n bigint not null)`.execute(conn);
  // One pass over the rows (each dimension, a page lookup for some, evaluated once per row); then each key is a sum.
  const columns = spec.dims.map((_, i) => `d${i}`);
  await sql`drop table if exists ${T('agora_dims')}`.execute(conn);
  await sql
    .raw(
      `create temp table agora_dims as select ${[...spec.dims.map((dim, i) => `${dim} as d${i}`), 'count(*) as n'].join(', ')} ` +
        `from ${spec.table} r${columns.length ? ` group by ${columns.join(', ')}` : ''}`,
    )
    .execute(conn);
  for (const m of masks(spec))
    await sql`insert into ${T('agora_recount')} (key, n)
      select ${sql.raw(keyOf(spec, m, columns.map((c) => `g.${c}`)))}, sum(g.n) from ${T('agora_dims')} g
      where ${sql.raw(fixesFlag(spec, m) ? flagIsSet(`g.${columns[spec.flag!]}`) : '1 = 1')} group by 1`.execute(conn);
  await sql`drop table ${T('agora_dims')}`.execute(conn);
  const [low, high] = [`${spec.list}|`, `${spec.list}}`];
  for (let after = ''; report; ) {
    const { rows } = await sql<{ key: string; kept: number; actual: number }>`
      select r.key as key, coalesce(c.n, 0) as kept, r.n as actual
      from ${T('agora_recount')} r left join list_counts c on c.key = r.key
      where r.key > ${after} and coalesce(c.n, 0) <> r.n order by r.key limit ${BATCH}`.execute(conn);
    for (const row of rows) await report({ key: row.key, kept: Number(row.kept), actual: Number(row.actual) });
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1]!.key;
  }
  for (let after = low; report; ) {
    const { rows } = await sql<{ key: string; kept: number }>`
      select c.key as key, c.n as kept from list_counts c
      where c.key > ${after} and c.key < ${high} and c.n <> 0
        and not exists (select 1 from ${T('agora_recount')} r where r.key = c.key)
      order by c.key limit ${BATCH}`.execute(conn);
    for (const row of rows) await report({ key: row.key, kept: Number(row.kept), actual: 0 });
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1]!.key;
  }
  if (!repair) return;
  await sql`insert into list_counts (key, n) select key, n from ${T('agora_recount')} where true
    on conflict (key) do update set n = excluded.n where list_counts.n <> excluded.n`.execute(conn);
  await sql`update list_counts set n = 0 where key > ${low} and key < ${high} and n <> 0
    and not exists (select 1 from ${T('agora_recount')} r where r.key = list_counts.key)`.execute(conn);
  // SQLite: readers' remembered counts are retired with their table's version.
  if (temp === 'temp') await sql`update table_versions set v = v + 1 where name = ${spec.table}`.execute(conn);
}
