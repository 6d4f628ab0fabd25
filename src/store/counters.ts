import { sql, type Kysely } from 'kysely';
import { inOwnTransaction, type Dialect } from './dialect.js';
import { EVENT_ENDS } from './migrations/0033-event-ends.js';
import { API_KEYS } from './migrations/0035-key-count.js';
import { EVENT_END_MONTHS } from './migrations/0038-event-end-months.js';
import { REPORT_COUNTS } from './migrations/0039-report-counts.js';
import { AUDIT_COUNTS } from './migrations/0040-audit-counts.js';
import { REMOVED_COUNTS } from './migrations/0043-removed-list.js';
import {
  columnsOf,
  countersFor as foundationCounters,
  fixesFlag,
  flagIsSet,
  keyOf,
  longestEventMsPg,
  masks,
  type CounterSpec,
} from './migrations/counting.js';
import type { Database } from './schema.js';

/**
 * What is counted is what the migrations' triggers count: their frozen specifications (`migrations/counting.ts` and
 * the later migrations that added a list), read here rather than written out again. `test/api/migrations` checks
 * that the triggers in a store are the ones these make. A change to what is counted is a new migration.
 */
export const countersFor = (dialect: Dialect): readonly CounterSpec[] => [
  ...foundationCounters(dialect === 'postgres'),
  ...[EVENT_ENDS, EVENT_END_MONTHS, REPORT_COUNTS, AUDIT_COUNTS, REMOVED_COUNTS, API_KEYS],
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
