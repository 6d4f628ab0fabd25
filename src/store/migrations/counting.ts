import { sql, type Kysely } from 'kysely';

/*
 * Frozen with the migrations that count (0005, 0012, 0015, 0020): the kept counts' specifications and the SQL of
 * their triggers, as they were when the migrations stopped importing live code (issue 29: until then each run of
 * them made the triggers of its day). They never change: a change to what is counted is a new migration that
 * carries its own copy. `counters.ts` (admin check) reads what is counted from here and from the later migrations
 * that add a list, so the recount is the triggers' own specification. Never edit.
 */

export interface CounterSpec {
  list: string;
  table: string;
  dims: readonly string[];
  /**
   * The index of a dimension that is a flag (1 or 0) which the lists read only as 1 (a Member's lists subtract
   * the follows of secret pages, the events of secret pages; a user's own statuses that reach their followers):
   * the keys that fix it are kept only for rows whose flag is 1. Their keys with the flag at 0 were never read,
   * yet moved on every write: half of a follow's 16 counts, on a million follows each a page of its own to write.
   */
  flag?: number;
  /**
   * The combinations not kept (`mask`: bit i set, dimension i fixed), whose counts the list answers otherwise:
   * a key that every new row would add (one for each follower and page) costs a page written per row and
   * grows the table of counts with the rows.
   */
  unkept?: (mask: number) => boolean;
}

const pageOwner = (column: string) => `(select p.user_id from pages p where p.id = r.${column})`;

const COUNTERS: readonly CounterSpec[] = [
  { list: 'page_configurations', table: 'page_configurations', dims: [] },
  { list: 'pages', table: 'pages', dims: ['r.page_configuration_id', 'r.user_id', 'r.privacy'] },
  { list: 'users', table: 'users', dims: ['r.permission_set_id'] },
  // A follow's and an event's page's secrecy is the row's own copy of it (`secret_page`, migration 0007, kept by
  // triggers as the row is written and as its page's privacy changes), not a look at the page for each of their
  // keys (migration 0012): the same value, and a change of the copy moves the row between counts.
  {
    list: 'follows',
    table: 'follows',
    dims: ['r.followable_type', 'r.followable_id', 'r.user_id', `(r.followable_type = 'Page' and r.secret_page)`],
    flag: 3,
    // Not kept (migration 0020): a user's follows of one page or user (none or one a type: the list looks it up),
    // and a followable's follows without its type (the sum of its type's: ids are unique across users and pages).
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
  { list: 'event_attendances', table: 'event_attendances', dims: ['r.event_id', 'r.answer'] },
  { list: 'webhooks', table: 'webhooks', dims: [] },
  { list: 'webhook_deliveries', table: 'webhook_deliveries', dims: ['r.webhook_id'] },
  { list: 'permission_sets', table: 'permission_sets', dims: [] },
  // The stream's parts: a page's statuses, an event's, and a user's own that reach their followers.
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

/**
 * The same counts for PostgreSQL, whose comparisons are booleans (SQLite's are 0 and 1): each flag is a
 * CASE giving 1 or 0, so that the keys are the same text (`…|1`, `…|0`) in both dialects.
 */
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
export const countersFor = (pg: boolean): readonly CounterSpec[] => (pg ? PG_COUNTERS : COUNTERS);

/**
 * The SQL of a row's key for one combination (bit i of `mask` set: dimension i is fixed); for a combination
 * that fixes the flag, null where the row's flag is not 1 (no key: see `CounterSpec.flag`).
 */
function keyExpression(spec: CounterSpec, mask: number, alias: string): string {
  const values = spec.dims.map((dim) => dim.replace(/\br\./g, `${alias}.`));
  if (!fixesFlag(spec, mask)) return keyOf(spec, mask, values);
  // Where the key is kept its flag is 1: written as such, so that the flag (a look at the page, for statuses)
  // is evaluated once per key, not twice.
  const flag = values[spec.flag!]!;
  return `case when ${flagIsSet(flag)} then ${keyOf(spec, mask, values.map((v, i) => (i === spec.flag ? '1' : v)))} end`;
}

export const fixesFlag = (spec: CounterSpec, mask: number) => spec.flag !== undefined && (mask & (1 << spec.flag)) !== 0;
/** The flag's value is 1 (as its key says it: the same text in both dialects). */
export const flagIsSet = (value: string) => `coalesce(cast(${value} as text), '') = '1'`;

/** The key for one combination, from an SQL expression of each dimension's value. */
export function keyOf(spec: CounterSpec, mask: number, values: readonly string[]): string {
  const parts = values.map((value, i) => (mask & (1 << i) ? `coalesce(cast(${value} as text), '')` : `'*'`));
  return [`'${spec.list}|'`, ...(parts.length ? [parts.join(` || '|' || `)] : [])].join(' || ');
}

/** The combinations kept of a list's dimensions (`CounterSpec.unkept` left out). */
export const masks = (spec: CounterSpec) =>
  Array.from({ length: 1 << spec.dims.length }, (_, m) => m).filter((m) => !spec.unkept?.(m));

/** The columns of the row that the dimensions read: an update of one of them moves the row between counts. */
export const columnsOf = (spec: CounterSpec) => [
  ...new Set(spec.dims.flatMap((d) => [...d.matchAll(/\br\.(\w+)/g)].map((m) => m[1]!))),
];

function upsert(spec: CounterSpec, alias: string, delta: number): string {
  const values = masks(spec)
    .map((m) => `(${keyExpression(spec, m, alias)}, ${delta})`)
    .join(', ');
  // With a flag, the keys it leaves out are null and not written (a WHERE, which also settles SQLite's
  // reading of ON CONFLICT after a SELECT).
  if (spec.flag !== undefined)
    return `insert into list_counts (key, n) select column1, column2 from (values ${values}) where column1 is not null on conflict (key) do update set n = n + excluded.n;`;
  return `insert into list_counts (key, n) values ${values} on conflict (key) do update set n = n + excluded.n;`;
}

/** Triggers that keep the counts in the transaction of every write (SQLite). */
export function counterTriggers(spec: CounterSpec): string[] {
  const name = `${spec.list}_counts`;
  const triggers = [
    `create trigger ${name}_insert after insert on ${spec.table} begin ${upsert(spec, 'new', 1)} end`,
    `create trigger ${name}_delete after delete on ${spec.table} begin ${upsert(spec, 'old', -1)} end`,
  ];
  const columns = columnsOf(spec);
  if (columns.length)
    triggers.push(
      `create trigger ${name}_update after update of ${columns.join(', ')} on ${spec.table} begin ` +
        `${upsert(spec, 'old', -1)} ${upsert(spec, 'new', 1)} end`,
    );
  return triggers;
}

/**
 * The same triggers in PL/pgSQL, from the same specification: a function per table and event, row-level
 * AFTER triggers. The keys of one row are summed before the upsert (PostgreSQL refuses to update a row twice
 * in one INSERT … ON CONFLICT) and taken in key order, so that concurrent writers lock the shared count rows
 * in one order (in any other, two follows at once deadlock and one waits out `deadlock_timeout`).
 */
export function counterTriggersPg(spec: CounterSpec): string[] {
  const name = `${spec.list}_counts`;
  const upsertPg = (alias: string, delta: number) =>
    `insert into list_counts (key, n) select k, sum(d) from (values ${masks(spec)
      .map((m) => `(${keyExpression(spec, m, alias)}, ${delta})`)
      .join(', ')}) as v(k, d) where k is not null group by k order by k on conflict (key) do update set n = list_counts.n + excluded.n;`;
  const trigger = (event: string, when: string, body: string) => [
    `create function ${name}_${event}() returns trigger language plpgsql as $$ begin ${body} return null; end $$`,
    `create trigger ${name}_${event} after ${when} on ${spec.table} for each row execute function ${name}_${event}()`,
  ];
  const statements = [...trigger('insert', 'insert', upsertPg('new', 1)), ...trigger('delete', 'delete', upsertPg('old', -1))];
  const columns = columnsOf(spec);
  if (columns.length)
    statements.push(...trigger('update', `update of ${columns.join(', ')}`, `${upsertPg('old', -1)} ${upsertPg('new', 1)}`));
  return statements;
}

/** Drops a list's counting triggers (and their functions on PostgreSQL) and makes them again from `spec` (a migration's step). */
export async function replaceCounterTriggers(db: Kysely<any>, spec: CounterSpec, pg: boolean): Promise<void> {
  for (const event of ['insert', 'delete', 'update']) {
    const name = `${spec.list}_counts_${event}`;
    if (pg) {
      await sql.raw(`drop trigger if exists ${name} on ${spec.table}`).execute(db);
      await sql.raw(`drop function if exists ${name}()`).execute(db);
    } else await sql.raw(`drop trigger if exists ${name}`).execute(db);
  }
  for (const statement of pg ? counterTriggersPg(spec) : counterTriggers(spec)) await sql.raw(statement).execute(db);
}

/** What the counts should be, recounted from the rows: every key of the list with its number of rows. */
export async function recount(db: Kysely<any>, spec: CounterSpec): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const m of masks(spec)) {
    const rows = await sql<{ key: string | null; n: number }>`
      select ${sql.raw(keyExpression(spec, m, 'r'))} as key, count(*) as n from ${sql.table(spec.table)} r group by 1`.execute(db);
    for (const row of rows.rows) if (row.key !== null) counts.set(row.key, Number(row.n));
  }
  return counts;
}

/** An event's length in milliseconds, plus one, on PostgreSQL: `row` is `new.` in a trigger, '' over the table. */
export const longestEventMsPg = (row: string) =>
  `(floor(extract(epoch from (${row}end_date::timestamptz - ${row}start_date::timestamptz)) * 1000))::bigint + 1`;
