import { sql, type Expression, type RawBuilder, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import { AppError, ErrorCode } from '../shared/errors.js';
import type { Pagination } from '../shared/schemas/common.js';
import { fixed, onPostgres } from './dialect.js';
import type { Database } from './schema.js';

// Every list, on both engines: a page is an index range after a cursor, or after the sort key a page number skips
// to over index entries only; its total comes from kept counts (`list_counts`, counters.ts).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyQuery = SelectQueryBuilder<any, any, any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDb = Kysely<any>;

/** A page of the whole table in id order, its total the table's kept count. */
export const everyRow = <T extends keyof Database>(db: Kysely<Database>, table: T) => (page: Pagination): Promise<Listed<Selectable<Database[T]>>> =>
  listPage(db, [{ query: (db as AnyDb).selectFrom(table), keys: [`${table}.id`] }], (q) => q.selectAll(table), page, kept([counterKey(table, [])]));

/** What a list selects of its walk's rows. */
export type Selection = (query: AnyQuery) => AnyQuery;

/**
 * Records a list's rows show (a follow's page), left-joined to the page's rows (alias `rows`) so a list is one round
 * trip; columns `<name>__<column>` come back as a row `<name>`, absent when the join found none.
 */
export type Embeds = (query: AnyQuery, rows: string) => AnyQuery;

/** One index walk: a filtered query and its sort columns, the last unique. A list merges one walk or several. */
export interface Walk {
  query: AnyQuery;
  keys: readonly string[];
  /** This walk's own selection when its table differs (the moderation queue); same columns and names as the others. */
  select?: Selection;
}

/** Newest first (`desc`), the records its rows embed (`embeds`), walks that share no row (`disjoint`). */
export type ListOptions = { desc?: boolean; embeds?: Embeds; disjoint?: boolean };

/** A page of a list with its exact total. */
export interface Listed<Row> {
  rows: Row[];
  /** The sort key of the last row when more rows follow: what a `cursor` carries. */
  next?: string[];
  total: number;
}

const KEY = (i: number) => `__k${i}`;
/** The query with its walk's sort key selected (`__k0`, `__k1`, …), as a cursor and a merge read it. */
const withKeys = (walk: Walk, query: AnyQuery): AnyQuery => walk.keys.reduce((q, key, i) => q.select(sql.ref(key).as(KEY(i))), query);

/** A list's cursor checked against its sort key (`keys`), before any use (a stream's, before it has walks): another list's (another width) is not one we gave. */
export function cursorOf({ cursor }: Pagination, keys: readonly string[]): string[] | undefined {
  if (cursor && cursor.length !== keys.length) throw new AppError(400, ErrorCode.invalidQuery, 'cursor is not one this server gave: follow the Link header as it is');
  return cursor;
}
/**
 * A page and its exact total (an SQL expression), read in the rows' statement (alone only for an empty page): a range
 * of the walks' indexes, from a cursor or a page number's key. A row in two walks comes once.
 */
export async function listPage<Row>(
  db: AnyDb,
  walks: Walk[],
  select: Selection,
  position: Pagination,
  total: Expression<number>,
  { desc = false, embeds, disjoint = false }: ListOptions = {},
): Promise<Listed<Row>> {
  const alone = async () => Number((await db.selectNoFrom(sql<number>`${total}`.as('n')).execute())[0]?.n ?? 0);
  if (walks.length === 0) return { rows: [], total: await alone() };
  const cursor = cursorOf(position, walks[0]!.keys);
  const direction = desc ? 'desc' : 'asc';
  const from = (walk: Walk, start: RawBuilder<unknown> | undefined, inclusive: boolean) => {
    if (!start) return walk.query;
    const op = sql.raw(desc ? (inclusive ? '<=' : '<') : inclusive ? '>=' : '>');
    return walk.query.where(sql<boolean>`(${sql.join(walk.keys.map((k) => sql.ref(k)))}) ${op} ${start}`);
  };
  const keyed = (walk: Walk, query: AnyQuery) => walk.keys.reduce((q, key) => q.orderBy(key, direction), withKeys(walk, query));
  const keysOf = (row: Record<string, unknown>) => Array.from({ length: walks[0]!.keys.length }, (_, i) => String(row[KEY(i)]));

  const values = (keys: readonly string[]) => sql`(${sql.join(keys.map((v) => sql.val(v)))})`;
  const skip = cursor ? 0 : (position.page - 1) * position.per_page;
  let start = cursor && values(cursor);
  if (skip > 0) {
    // PostgreSQL, one walk: a subquery, saving a round trip. Else read first: SQLite has no round trip to save and
    // would not start its index range at a row value compared with a subquery; several walks would each carry the skip.
    const skipper = keyAt(db, walks, skip, direction, keyed);
    if (onPostgres(db) && walks.length === 1) start = sql`(${skipper})`;
    else {
      const [row] = (await skipper.execute()) as Record<string, unknown>[];
      // Past the end: no rows to carry the total.
      if (!row) return { rows: [], total: await alone() };
      start = values(walks[0]!.keys.map((_, i) => String(row[KEY(i)])));
    }
  }
  const n = position.per_page;
  // Several walks are one statement (`firstOfUnion`): one snapshot (a commit could move a row between walks) and one
  // round trip. Walks that may share a row read n + 1 each, `disjoint` ones n + 1 in all. The total sits once beside
  // a MATERIALIZED union, else SQLite copies it into every walk (docs/performance.md, "What the history taught").
  const selected = (walk: Walk) => (walk.select ?? select)(from(walk, start, skip > 0));
  const withTotal = (query: AnyQuery) => query.select(sql<number>`${total}`.as(TOTAL));
  const page =
    walks.length === 1
      ? withTotal(keyed(walks[0]!, selected(walks[0]!)).limit(n + 1))
      : withTotal(
          db
            .with((cte) => cte('walks').materialized(), () => firstOfUnion(db, walks, selected, keyed, direction, (n + 1) * (disjoint ? 1 : walks.length)))
            .selectFrom('walks')
            .selectAll('walks'),
        );
  // Joined outside the walk: a key lookup for each of the page's rows only.
  const query = embeds ? embeds(db.selectFrom(page.as('w')).selectAll('w'), 'w') : page;
  const read = (await query.execute()) as Record<string, unknown>[];
  const counted = read[0]?.[TOTAL];
  // The join has no ORDER BY (SQLite would sort in a temporary B-tree): a page of rows is put in key order here.
  const ordered = walks.length === 1 && !embeds ? read : merged(read, keysOf, desc);
  const next = ordered.length > n ? keysOf(ordered[n - 1]!) : undefined;
  const rows = ordered.slice(0, n).map(rowShape(ordered[0]) as (row: Record<string, unknown>) => Row);
  return { rows, next, total: counted === undefined ? await alone() : Number(counted) };
}

const TOTAL = '__total';

/**
 * A page's rows without the `__…` columns, each embedded record as a row of its own, absent when its id is null.
 * One function per list of columns (a list's statement has one), compiled to object literals: a loop copying each
 * column by name costs a slow keyed load and store a value, a fifth of a wide list's CPU (docs/performance.md,
 * "Rows made objects"). The names are our SQL's columns, written as string literals.
 */
function rowShape(first: Record<string, unknown> | undefined): (row: Record<string, unknown>) => Record<string, unknown> {
  const columns = first ? Object.keys(first) : [];
  const key = columns.join(',');
  let shape = shapes.get(key);
  if (!shape) {
    const own: string[] = [];
    const embedded = new Map<string, [column: string, as: string][]>();
    for (const column of columns) {
      const at = column.indexOf('__');
      if (at === -1) own.push(column);
      else if (at > 0) {
        const name = column.slice(0, at);
        embedded.set(name, [...(embedded.get(name) ?? []), [column, column.slice(at + 2)]]);
      }
    }
    const q = JSON.stringify;
    const fields = (list: [string, string][]) => `{${list.map(([column, as]) => `${q(as)}: r[${q(column)}]`).join(', ')}}`;
    const body = [
      `const s = ${fields(own.map((c) => [c, c]))};`,
      ...[...embedded].map(([name, list]) => `if (r[${q(`${name}__id`)}] != null) s[${q(name)}] = ${fields(list)};`),
      'return s;',
    ].join('\n');
    if (shapes.size >= 1000) shapes.clear();
    // Compiled once per list of columns, from their names.
    shape = new Function('r', body) as (row: Record<string, unknown>) => Record<string, unknown>;
    shapes.set(key, shape);
  }
  return shape;
}
const shapes = new Map<string, (row: Record<string, unknown>) => Record<string, unknown>>();

/** One compound SELECT: a list has a few walks (a stream a page's rows and one at most, SQLite takes 500). */
const compound = (queries: AnyQuery[], all: boolean): AnyQuery => queries.reduce((union, query) => (all ? union.unionAll(query) : union.union(query)));

/**
 * The first `limit` rows of several walks as one UNION ALL ordered and limited as a whole, which both engines merge
 * as they read, so only the page's rows are read whole. SQLite needs bare walks (it sorts subqueries); PostgreSQL
 * needs each walk ordered and cut at the limit (`Merge Append` of `Limit`s; it sorts a union of bare walks).
 */
function firstOfUnion(
  db: AnyDb,
  walks: Walk[],
  selected: (walk: Walk) => AnyQuery,
  keyed: (walk: Walk, query: AnyQuery) => AnyQuery,
  direction: 'asc' | 'desc',
  limit: number,
): AnyQuery {
  const columns = walks[0]!.keys.map((_, i) => KEY(i));
  let union = onPostgres(db)
    ? db.selectFrom(compound(walks.map((walk, w) => db.selectFrom(keyed(walk, selected(walk)).limit(limit).as(`w${w}`)).selectAll()), true).as('u')).selectAll()
    : compound(walks.map((walk) => withKeys(walk, selected(walk))), true);
  for (const column of columns) union = union.orderBy(sql.ref(column), direction);
  return union.limit(limit);
}

/** The rows of several walks in key order, each key once. */
function merged<T>(rows: readonly T[], keysOf: (row: T) => string[], desc: boolean): T[] {
  const compare = (a: string[], b: string[]) => {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (a[i]! < b[i]! ? -1 : 1) * (desc ? -1 : 1);
    return 0;
  };
  const all = rows.map((row) => ({ row, keys: keysOf(row) }));
  all.sort((a, b) => compare(a.keys, b.keys));
  return all.filter((item, i) => i === 0 || compare(all[i - 1]!.keys, item.keys) !== 0).map((item) => item.row);
}

/** The sort key `skip` rows into the list, read from the walks' indexes only; no row past the end. */
function keyAt(db: AnyDb, walks: Walk[], skip: number, direction: 'asc' | 'desc', keyed: (walk: Walk, query: AnyQuery) => AnyQuery): AnyQuery {
  const columns = walks[0]!.keys.map((_, i) => KEY(i));
  let skipper: AnyQuery;
  if (walks.length === 1) skipper = keyed(walks[0]!, walks[0]!.query);
  else {
    // PostgreSQL would sort every key of every walk: each gives its first skip + 1 keys, enough for the union's.
    const arms = onPostgres(db)
      ? walks.map((walk, w) => db.selectFrom(keyed(walk, walk.query).limit(skip + 1).as(`w${w}`)).select(columns))
      : walks.map((walk) => withKeys(walk, walk.query));
    skipper = compound(arms, false);
    for (const column of columns) skipper = skipper.orderBy(sql.ref(column), direction);
  }
  return skipper.limit(1).offset(skip);
}

/** The sum of kept counts (a key given twice counts twice). SQL text, not a builder: it is built every request. */
export function kept(keys: readonly string[]): Expression<number> {
  const each = keys.map((key) => sql`coalesce((select n from list_counts where key = ${key}), 0)`);
  return keys.length === 0 ? sql<number>`0` : sql<number>`(${sql.join(each, sql` + `)})`;
}

/** The sum of the kept counts with keys strictly between `after` and `before`: one range of the primary key. */
export function keptBetween(after: string, before: string): Expression<number> {
  return sql<number>`(select coalesce(sum(n), 0) from list_counts where key > ${after} and key < ${before})`;
}

/** The sum of the kept counts of one key per id of `ids` (a query of an `id` column; a Member's few secret pages). */
export function keptEach(keyOf: (id: string) => string, ids: Expression<string>): Expression<number> {
  const [before, after] = keyOf(EACH).split(EACH);
  return sql<number>`(select coalesce(sum(n), 0) from list_counts
    where key in (select cast(${before} as text) || seen.id || cast(${after} as text) from ${ids} as seen))`;
}
/** As `keptEach`, a key per pair of ids of `as` and `bs`: a range of keys per `as`, not a lookup per pair. */
export function keptEachPair(keyOf: (a: string, b: string) => string, as: Expression<string>, bs: Expression<string>): Expression<number> {
  const [before, between, after] = keyOf(EACH, EACH).split(EACH);
  const start = sql`(cast(${before} as text) || a.id || cast(${between} as text))`;
  return sql<number>`(select coalesce(sum(n), 0) from ${as} as a inner join list_counts on key > ${start} and key < ${start} || ${'\uffff'}
    where substr(key, length(${start}) + 1) in (select b.id || cast(${after} as text) from ${bs} as b))`;
}
/** Where `keptEach` and `keptEachPair` put an id in a key: a character no key holds. */
const EACH = '\u0002';

/** How many rows a filtered query matches, as SQL: only for small, bounded sets (a slug's one row, a user's keys). */
export function counted(query: AnyQuery): Expression<number> {
  return sql<number>`(${query.select((eb) => eb.fn.countAll().as('n'))})`;
}

/** A kept count's key: the list's name, then each dimension's value in order, or `*` for any. */
export const counterKey = (list: string, dims: readonly (string | null | undefined)[]): string =>
  `${list}|${dims.map((d) => (d === undefined ? '*' : d === null ? '' : /[*|]/.test(d) ? NO_ROW : d)).join('|')}`;
/** Keys a filter value holding `*` or `|` (no row's does) where no trigger writes: `?followable_id=*` counts none. */
const NO_ROW = '\u0001';

/** A filter with more dimensions fixed, or null when it fixes one to another value (that matches nothing). */
function narrowed<F extends object>(filter: F, extra: Partial<F>): F | null {
  const fixed = filter as Record<string, unknown>;
  for (const [name, value] of Object.entries(extra))
    if (fixed[name] !== undefined && fixed[name] !== value) return null;
  return { ...filter, ...extra };
}

/** A filter: the value each dimension is fixed to, if any. */
export type Filter<F> = { [K in keyof F]?: string };
/** Who sees which rows of a filtered list: those matching any of these filters, or all (an Admin). */
export type SeenBy<F extends Filter<F>> = 'all' | Partial<F>[];

/**
 * One dimension of a filtered list: the filter's field, its column (or, given the filter, an expression), and the
 * values that are written as literals (`fixed`: partial indexes name them).
 */
export interface Dimension<F extends Filter<F>> {
  name: keyof F & string;
  column: string | ((f: F) => Expression<string>);
  values?: readonly string[];
}

/**
 * A list filtered by column = value (access requests, invites, reports), its dimensions in the order of its kept
 * counts' keys. A viewer sees the rows matching any of several filters (`…SeenBy` in visibility.ts): the list walks an
 * index per filter, merged, its total by inclusion–exclusion over the kept counts of every intersection; the single
 * read takes the same filters.
 */
export function filteredBy<F extends Filter<F>>(db: AnyDb, from: string, list: string, dims: readonly Dimension<F>[]) {
  const alias = from.split(' as ')[1]!;
  const conditions = (f: F) =>
    dims
      .filter((d) => f[d.name] !== undefined)
      .map((d) => {
        const value = f[d.name]!;
        const column = typeof d.column === 'string' ? sql.ref(d.column) : d.column(f);
        return sql<boolean>`${column} = ${d.values ? fixed(value, d.values) : value}`;
      });
  const matching = (f: F): AnyQuery => conditions(f).reduce((q, c) => q.where(c), db.selectFrom(from));
  const key = (f: F) => counterKey(list, dims.map((d) => f[d.name]));
  return {
    /** The row if one of `seenBy`'s filters matches it. */
    visible(id: string, seenBy: SeenBy<F>): AnyQuery {
      const query = db.selectFrom(from).where(`${alias}.id`, '=', id);
      return seenBy === 'all' ? query : query.where((eb) => eb.or(seenBy.map((f) => eb.and(conditions(f as F)))));
    },
    /** Whether a row matches `filter`: a lookup of the index its dimensions name, the row alone. */
    has: async (filter: F): Promise<boolean> => !!(await matching(filter).select(`${alias}.id`).executeTakeFirst()),
    /** A page of the rows matching `filter` and one of `seenBy`'s, ordered by `keys`. */
    async list<Row>(filter: F, seenBy: SeenBy<F>, keys: readonly string[], page: Pagination, select: Selection, embeds: Embeds): Promise<Listed<Row>> {
      const anyOf: Partial<F>[] = seenBy === 'all' ? [{}] : seenBy;
      const walks = anyOf.map((c) => narrowed(filter, c)).filter((f): f is F => f !== null);
      if (walks.length === 0) return { rows: [], total: 0 };
      const plus: string[] = [];
      const minus: string[] = [];
      for (let mask = 1; mask < 1 << anyOf.length; mask++) {
        let f: F | null = filter;
        for (let i = 0; i < anyOf.length && f; i++) if (mask & (1 << i)) f = narrowed(f, anyOf[i]!);
        if (!f) continue;
        const bits = mask.toString(2).replaceAll('0', '').length;
        (bits % 2 ? plus : minus).push(key(f));
      }
      const total = sql<number>`(${kept(plus)} - ${kept(minus)})`;
      return listPage<Row>(db, walks.map((f) => ({ query: matching(f), keys })), select, page, total, { embeds });
    },
  };
}
