import { createQueryId, sql, type CompiledQuery, type Kysely, type SelectQueryBuilder } from 'kysely';
import { AppError, ErrorCode } from '../shared/errors.js';
import type { Pagination } from '../shared/schemas/common.js';
import { COUNTERS } from './counters.js';
import { dialectOf } from './dialect.js';
import type { EmbeddedRecords, Layout } from './embedded.js';
import type { KeptKind } from './records-json.js';
import type { Database } from './schema.js';

/** Rows to skip before the requested page. */
export const offsetOf = (page: Pagination): number => (page.page - 1) * page.per_page;

/** How many rows a (filtered) query matches: only for small, bounded sets (a user's own memberships). */
export async function countOf<DB, TB extends keyof DB>(query: SelectQueryBuilder<DB, TB, object>): Promise<number> {
  const row = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number((row as { n: number | string | bigint }).n);
}

/**
 * `countOf`, read as `rowsOfRead` reads: outside transactions straight from the store's reading connection, never
 * queued behind a write group (for a total counted on a request's path: a lookup of a few index entries).
 */
export async function countRead<DB, TB extends keyof DB>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  query: SelectQueryBuilder<DB, TB, object>,
): Promise<number> {
  const rows = await rowsOfRead<{ n: number | string | bigint }>(db, query.select((eb) => eb.fn.countAll<number>().as('n')).compile());
  return Number(rows[0]?.n ?? 0);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyQuery = SelectQueryBuilder<any, any, any>;
/**
 * What a list selects of its walk: declared once per list, a constant, never a new closure per call (a list's
 * compiled fetch is kept per selection function, `fetchOf`: a new one each time would be built and compiled on
 * every request).
 */
export type Selection = (query: AnyQuery) => AnyQuery;

/**
 * A selection of one column, each row's record as JSON text (`json_object`, in the order and with the values
 * the list's own mapping gives), or of a record's parts (`layout`).
 */
export interface JsonSelection {
  select: Selection;
  /**
   * A record in parts (`Parts` in `records-json.ts`): the selection's columns are its objects and the
   * references of the users and pages it embeds, spliced by the reader's `EmbeddedRecords` as `viewer` (a
   * Member's id; null, an administrator) may see them.
   */
  layout?: Layout;
  viewer?: string | null;
  /**
   * SQL of the versions of the texts a record in parts is spliced with (`partsSelection`): read by the page's
   * statement once, as a last row of its own, so as of the rows' moment.
   */
  versions?: string;
  /** The kind of a list's own records kept by id (`KEPT_RECORDS`), whose version `versions` reads too. */
  kept?: KeptKind;
}

/**
 * One index walk of a list: a filtered query (nothing selected yet) and the columns it is ordered by, the
 * last of them unique. A list is one walk, or the union of several walks in the same order (a Member's
 * pages: the public ones, the private ones, the secret ones they are in), merged here.
 */
export interface Walk {
  query: AnyQuery;
  keys: readonly string[];
}

/**
 * A walk's filter compiled (its SQL and parameters: what names the list and fills its fetches), once per query:
 * a repository that keeps its walks per filter and viewer (`WalksKept`) hands the same query again, and it is
 * not compiled again. The compiled query is never run itself.
 */
const compiledWalks = new WeakMap<object, CompiledQuery>();
function compiledWalk(query: AnyQuery): CompiledQuery {
  let compiled = compiledWalks.get(query);
  if (!compiled) compiledWalks.set(query, (compiled = query.compile()));
  return compiled;
}

/**
 * The walks of a list kept per what they depend on (the filter, the viewer's view: a JSON key the repository
 * writes), at most `max` of them: a query is only a description, the same one serves every request that asks
 * the same, and is compiled once (`compiledWalk`). Building and compiling a Member's pages walk with Kysely cost
 * about 12 µs a request.
 */
export class WalksKept<T> {
  private readonly kept = new Map<string, T>();
  constructor(private readonly max = 1000) {}
  get(key: string, build: () => T): T {
    let found = this.kept.get(key);
    if (found === undefined) {
      if (this.kept.size >= this.max) this.kept.clear();
      found = build();
      this.kept.set(key, found);
    }
    return found;
  }
}

/** A page of a list with its exact total. */
export interface Listed<Row> extends Walked<Row> {
  total: number;
}

export interface Walked<Row> {
  rows: Row[];
  /**
   * The page's records as JSON text written by the store itself, one per row, instead of `rows` (then empty):
   * only where the list asked for it (`json`) and the page was read straight from SQLite.
   */
  json?: string[];
  /** The sort key of the last row when more rows follow: what a `cursor` carries. */
  next?: string[];
}

const KEY = (i: number) => `__k${i}`;

/**
 * A reading connection of the store's own (SQLite: the writing connection while it has no transaction open,
 * else a second, read-only one; `CommittedReads` in sqlite.ts), answering a compiled read synchronously, or
 * undefined for a statement that is not a pure read. Registered for the store's root Kysely only: a
 * transaction's queries (another Kysely object) always go through Kysely, on the connection that holds the
 * transaction, and see its writes.
 */
export interface DirectReader {
  /** The rows as objects, as Kysely would answer them. */
  rows(compiled: CompiledQuery): Record<string, unknown>[] | undefined;
  /** The rows as arrays of values, with the column names once. */
  values(compiled: CompiledQuery): { names: readonly string[]; values: unknown[][] } | undefined;
  /**
   * `read()`, whose reads (synchronous, through this reader) all see the same committed data: one read
   * transaction, so another connection's commit lands before them all or after.
   */
  snapshot<T>(read: () => T): T;
  /** The users and pages that records read in parts embed (`JsonSelection.layout`, `EmbeddedRecords.texts`). */
  embedded?: EmbeddedRecords;
}
const directReaders = new WeakMap<object, DirectReader>();

/** Lets `rowsOfRead` answer this Kysely's reads straight from `reader`. */
export function readDirectly(db: object, reader: DirectReader): void {
  directReaders.set(db, reader);
}

/**
 * The rows of a compiled read. Where the store gave `db` a direct reader (SQLite, outside transactions),
 * straight from it: committed data only (never a group of transactions still open, which may yet roll back,
 * and without waiting for one), with none of Kysely's per-query driver work (its connection mutex and a few
 * promises: about 15 µs a query). Elsewhere through Kysely.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function rowsOfRead<Row = Record<string, unknown>>(db: Kysely<any>, compiled: CompiledQuery): Row[] | Promise<Row[]> {
  const rows = directReaders.get(db)?.rows(compiled);
  return (rows as Row[] | undefined) ?? db.executeQuery<Row>(compiled).then((result) => result.rows as Row[]);
}

/**
 * The records of a read by ids (a list's embedded pages and users): `build(ids)` is a query whose only
 * parameters are the ids, in order. It is compiled once per number of ids and then filled in (building and
 * compiling it with Kysely cost as much as running it), and read like `rowsOfRead`: outside transactions
 * straight from the store's reading connection, never queued behind a write group on the writing one.
 * A query whose parameters are not exactly the ids is compiled every time.
 */
export function readByIds<Row>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  build: (ids: readonly string[]) => { compile(): CompiledQuery },
  ids: readonly string[],
): Promise<Row[]> {
  if (ids.length === 0) return Promise.resolve([]);
  let shapes = byIds.get(build);
  if (!shapes) byIds.set(build, (shapes = new Map()));
  // Per dialect too: one process may hold a SQLite and a PostgreSQL store (`admin copy`), whose SQL differs.
  const shape = ids.length * 2 + (dialectOf(db) === 'postgres' ? 1 : 0);
  const template = shapes.get(shape);
  let compiled: CompiledQuery;
  if (template) compiled = { query: template.query, queryId: createQueryId(), sql: template.sql, parameters: [...ids] };
  else {
    compiled = build(ids).compile();
    if (template === undefined && shapes.size < 500)
      shapes.set(shape, compiled.parameters.length === ids.length && compiled.parameters.every((p, i) => p === ids[i]) ? compiled : null);
  }
  return Promise.resolve(rowsOfRead<Row>(db, compiled));
}
const byIds = new WeakMap<object, Map<number, CompiledQuery | null>>();

/**
 * A page of a list at the same cost wherever it is: after a cursor, a range of the walks' indexes; at a
 * page number, a skip over index entries only (sort keys, a covering index) to the first row of the page,
 * then that range. Duplicates between walks (a secret page one created and follows) are answered once.
 */
export async function walkPage<Row>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  walks: Walk[],
  select: (query: AnyQuery) => AnyQuery,
  position: Pagination,
  desc = false,
  positions?: Positions,
  /**
   * Where the page is read straight from SQLite, the answer is made of these records' JSON texts
   * (`Walked.json`), without the rows' objects or `JSON.stringify`.
   */
  json?: JsonSelection,
): Promise<Walked<Row>> {
  if (walks.length === 0) return { rows: [] };
  // A cursor is the sort key of this list's last row: another list's (another width) is not one we gave.
  if (position.cursor && position.cursor.length !== walks[0]!.keys.length)
    throw new AppError(400, ErrorCode.invalidQuery, 'cursor is not one this server gave: follow the Link header as it is');
  const n = position.per_page;
  const direction = desc ? 'desc' : 'asc';
  const ordered = (walk: Walk, query: AnyQuery) =>
    walk.keys.reduce((q, key) => q.orderBy(key, direction), query);
  const from = (walk: Walk, after: readonly string[] | undefined, inclusive: boolean) => {
    if (!after) return walk.query;
    const op = sql.raw(desc ? (inclusive ? '<=' : '<') : inclusive ? '>=' : '>');
    return walk.query.where(
      sql<boolean>`(${sql.join(walk.keys.map((k) => sql.ref(k)))}) ${op} (${sql.join(after.map((v) => sql.val(v)))})`,
    );
  };
  const keyNames = walks[0]!.keys.map((_, i) => KEY(i));
  const keysOf = (row: Record<string, unknown>) => keyNames.map((name) => String(row[name]));
  const compare = (a: string[], b: string[]) => {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (a[i]! < b[i]! ? -1 : 1) * (desc ? -1 : 1);
    return 0;
  };
  const width = walks[0]!.keys.length;
  const withKeys = (walk: Walk, query: AnyQuery) =>
    walk.keys.reduce((q, key, i) => q.select(sql.ref(key).as(KEY(i))), query);
  /** The rows of every walk, in key order, each key once (one walk's are in order already). */
  const merged = <T>(lists: readonly T[][], keysOfRow: (row: T) => string[]): T[] => {
    if (lists.length === 1) return lists[0]!;
    const all = lists.flat().map((row) => ({ row, keys: keysOfRow(row) }));
    all.sort((a, b) => compare(a.keys, b.keys));
    return all.filter((item, i) => i === 0 || compare(all[i - 1]!.keys, item.keys) !== 0).map((item) => item.row);
  };

  let after = position.cursor;
  let inclusive = false;
  const skip = offsetOf(position);
  // The list's own name in the positions known of it: its keys' walk, compiled (SQL and parameters).
  const skipperFrom = (anchor: readonly string[] | undefined) => {
    const keyed = walks.map((walk) => withKeys(walk, from(walk, anchor, true)));
    let skipper = keyed[0]!;
    if (keyed.length > 1 && dialectOf(db) === 'postgres') {
      // PostgreSQL 15 does not merge ordered walks into a UNION: it would sort every key of every walk. Each walk
      // gives its first skip + 1 keys instead (an index range, bounded like SQLite's merge), and only those are
      // sorted: the first skip + 1 distinct keys of the union are among them.
      const columns = Array.from({ length: width }, (_, i) => KEY(i));
      const bounded = keyed.map((q, w) =>
        db.selectFrom(ordered(walks[w]!, q).limit(skip + 1).as(`w${w}`)).select(columns),
      );
      skipper = bounded[0]!;
      for (const other of bounded.slice(1)) skipper = skipper.union(other);
    } else for (const other of keyed.slice(1)) skipper = skipper.union(other);
    for (let i = 0; i < width; i++) skipper = skipper.orderBy(sql.ref(KEY(i)), direction);
    return skipper;
  };
  // One walk (most lists): its filter compiled once, naming the list for its positions and filling the
  // compiled fetch of its shape (`fetchOf`) instead of building and compiling the whole fetch again.
  const base = walks.length === 1 ? compiledWalk(walks[0]!.query) : undefined;
  const listName = base ? { sql: `${base.sql}\u0000${walks[0]!.keys.join(',')}\u0000${desc}`, parameters: base.parameters } : undefined;
  const known = positions && !after && skip > 0 ? positions.of(listName ?? skipperFrom(undefined).compile()) : undefined;
  if (!after && skip > 0) {
    // The skip runs in SQLite over the walks' indexes, keys only: one walk with OFFSET, several as one
    // compound UNION in key order (SQLite merges the ordered walks and drops duplicates), never rows in JS.
    // It starts from the nearest position already known of this list (while the data has not changed).
    const anchor = known?.nearest(skip);
    if (anchor && anchor.offset === skip) after = anchor.keys;
    else {
      const first = (await rowsOfRead(db, skipperFrom(anchor?.keys).limit(1).offset(skip - (anchor?.offset ?? 0)).compile()))[0];
      if (!first) return { rows: [] };
      after = keysOf(first);
      known?.remember(skip, after);
    }
    inclusive = true;
  }
  const direct = directReaders.get(db);
  const asJson = json !== undefined && direct !== undefined && (json.layout === undefined || direct.embedded !== undefined);
  const selection = asJson ? json.select : select;
  /**
   * The first `count` rows' records as JSON text: the selection's one column, or its parts spliced
   * (`inSnapshot`: in the rows' snapshot; else undefined where the texts read would not be of the rows' moment,
   * `EmbeddedRecords.texts`).
   */
  const textsOf = (values: unknown[][], count: number, versions: string | null | undefined, inSnapshot = true): string[] | undefined => {
    if (json?.layout) {
      // Outside a snapshot, texts read after the page are checked against its versions: none read, none checked.
      if (!inSnapshot && json.versions === undefined) return undefined;
      return direct!.embedded!.texts(values, count, json.layout, json.viewer ?? null, versions ?? null, json.kept, inSnapshot ? undefined : json.versions);
    }
    const texts = new Array<string>(count);
    for (let r = 0; r < count; r++) texts[r] = values[r]![0] as string;
    return texts;
  };
  const bases = walks.map((walk, w) => (w === 0 && base ? base : compiledWalk(walk.query)));
  /**
   * Walk `w`'s rows from `start` (inclusive or not), at most `limit`, selected by `chosen`: compiled once per
   * shape and filled in (`fetchOf`), or built (a shape's first use, or one whose parameters cannot be placed).
   */
  const fetchFrom = (w: number, chosen: Selection, start: readonly string[] | undefined, including: boolean, limit: number) => {
    const walk = walks[w]!;
    const build = (values: readonly unknown[] | undefined, count: unknown) =>
      ordered(walk, withKeys(walk, chosen(from(walk, values as string[] | undefined, including))))
        .limit(count as number)
        .compile();
    const starts = start ? start.length : 0;
    const filled = fetchOf(chosen, bases[w]!, `${desc}\u0000${starts}\u0000${including}\u0000${walk.keys.join(',')}`, starts, build);
    return filled ? filled(start ?? [], limit) : build(start, limit);
  };
  /**
   * Fetches read straight as values (the sort keys last): each walk's rows, and all of them merged in key order,
   * each key once (one walk's are in order already). Undefined where a fetch cannot be read so.
   */
  const readValues = (fetches: CompiledQuery[], versions?: string) => {
    // Several fetches are one statement (`unionAll`), each row tagged with its walk in a last column.
    const compound = fetches.length > 1;
    const statement = compound ? unionAll(fetches) : fetches[0]!;
    const read = direct!.values(versions === undefined ? statement : withVersions(statement, versions, compound));
    if (!read) return undefined;
    // The versions' row, last.
    const versionsRead = versions === undefined ? undefined : (read.values.pop()?.[0] as string | null | undefined);
    const names = compound ? read.names.slice(0, -1) : read.names;
    if (!names.slice(-width).every((name, i) => name === KEY(i))) return undefined;
    const columns = names.length - width;
    const keysOfValues = (row: unknown[]) => {
      const keys = new Array<string>(width);
      for (let i = 0; i < width; i++) keys[i] = String(row[columns + i]);
      return keys;
    };
    let perWalk = [read.values];
    if (compound) {
      perWalk = fetches.map(() => []);
      for (const row of read.values) perWalk[row[row.length - 1] as number]!.push(row);
    }
    return { names, columns, values: merged(perWalk, keysOfValues), keysOfValues, perWalk, versions: versionsRead };
  };
  // Several walks as JSON: the page's keys first (each walk's next keys, an index range), then each walk's
  // records of the page alone (its first rows from the page's first key): no record is written for a row that
  // another walk's rows push off the page. Both steps in one snapshot: a commit between them (another process's)
  // would otherwise change which rows a walk's first ones are.
  const pageOfWalksAsJson = (): Walked<Row> | undefined => {
    const keys = readValues(walks.map((_, w) => fetchFrom(w, keysOnly, after, inclusive, n + 1)));
    if (keys) {
      const { values, keysOfValues } = keys;
      if (known && values.length > n) known.remember(skip + n, keysOfValues(values[n]!));
      const next = values.length > n ? keysOfValues(values[n - 1]!) : undefined;
      const size = Math.min(n, values.length);
      if (size === 0) return { rows: [], json: [], next };
      const first = keysOfValues(values[0]!);
      const last = keysOfValues(values[size - 1]!);
      const fetches = keys.perWalk.flatMap((rows, w) => {
        const count = rows.filter((row) => compare(keysOfValues(row), last) <= 0).length;
        return count ? [fetchFrom(w, selection, first, true, count)] : [];
      });
      const records = readValues(fetches, json!.versions);
      if (records) return { rows: [], json: textsOf(records.values, records.values.length, records.versions)!, next };
    }
    return undefined;
  };
  /**
   * The page of one walk as JSON, its records in parts spliced with the texts of the same moment: read by one
   * statement where every text is kept, or read after it with the same versions (no write between); null where a
   * write came between: it is read again in a snapshot (`inSnapshot`), with the texts it lacks.
   */
  const pageOfPartsAsJson = (inSnapshot: boolean): Walked<Row> | undefined | null => {
    const read = readValues([fetchFrom(0, selection, after, inclusive, n + 1)], json!.versions);
    if (!read) return undefined;
    const { values, keysOfValues } = read;
    const texts = textsOf(values, Math.min(n, values.length), read.versions, inSnapshot);
    if (!texts) return null;
    if (known && values.length > n) known.remember(skip + n, keysOfValues(values[n]!));
    const next = values.length > n ? keysOfValues(values[n - 1]!) : undefined;
    return { rows: [], json: texts, next };
  };
  const parts = asJson && walks.length === 1 && json.layout ? pageOfPartsAsJson(false) : undefined;
  const paged =
    asJson && walks.length > 1
      ? direct!.snapshot(pageOfWalksAsJson)
      : parts === null
        ? direct!.snapshot(() => pageOfPartsAsJson(true))
        : parts;
  if (paged) return paged;
  // Read as rows where records in parts could not be read straight (never expected: every fetch is a read).
  const chosen = asJson && json.layout ? select : selection;
  const fetches = walks.map((_, w) => fetchFrom(w, chosen, after, inclusive, n + 1));
  const read = direct && readValues(fetches);
  if (read) {
    // Read straight as values: the page's objects made once, without the sort keys.
    const { names, columns, values, keysOfValues } = read;
    if (known && values.length > n) known.remember(skip + n, keysOfValues(values[n]!));
    const next = values.length > n ? keysOfValues(values[n - 1]!) : undefined;
    if (chosen === json?.select) return { rows: [], json: textsOf(values, Math.min(n, values.length), undefined)!, next };
    const rows = new Array<Row>(Math.min(n, values.length));
    for (let r = 0; r < rows.length; r++) {
      const row = values[r]!;
      const object: Record<string, unknown> = {};
      for (let i = 0; i < columns; i++) object[names[i]!] = row[i];
      rows[r] = object as Row;
    }
    return { rows, next };
  }
  const lists = await Promise.all(fetches.map((compiled) => rowsOfRead(db, compiled)));
  // One walk's rows are in order already: only the keys of the rows that end this page and start the next are read.
  const found = merged(lists, keysOf);
  // Where the next page starts: a later page number asked next costs no skip.
  if (known && found.length > n) known.remember(skip + n, keysOf(found[n]!));
  // The sort keys' own columns go (a copy without them keeps the row's shape fast; `delete` would not). Every
  // row has the same columns (one selection), named once.
  const columns = found.length ? Object.keys(found[0]!).filter((column) => !column.startsWith('__k')) : [];
  const next = found.length > n ? keysOf(found[n - 1]!) : undefined;
  if (chosen === json?.select)
    return { rows: [], json: found.slice(0, n).map((row) => row[columns[0]!] as string), next };
  const rows = new Array<Row>(Math.min(n, found.length));
  for (let r = 0; r < rows.length; r++) {
    const row = found[r]!;
    const clean: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) clean[columns[i]!] = row[columns[i]!];
    rows[r] = clean as Row;
  }
  return { rows, next };
}

/**
 * Several walks' fetches as one statement: each one's rows (its own order and limit, kept in a subquery), then
 * the next one's, every row tagged with the index of its fetch in a last column. One statement instead of one
 * per walk: each costs its own run through the driver, more than the walk itself at these sizes. Its text is
 * kept per combination of the fetches' texts (each compiled once per shape: `fetchOf`).
 */
function unionAll(fetches: readonly CompiledQuery[]): CompiledQuery {
  let level: Map<string, unknown> = compounds;
  for (const fetch of fetches) {
    let inner = level.get(fetch.sql) as Map<string, unknown> | undefined;
    if (!inner) {
      if (level.size >= 200) level.clear();
      level.set(fetch.sql, (inner = new Map()));
    }
    level = inner;
  }
  let text = level.get('') as string | undefined;
  if (text === undefined) {
    text = fetches.map((fetch, w) => `select *, ${w} as __walk from (${fetch.sql})`).join(' union all ');
    level.set('', text);
  }
  return { query: fetches[0]!.query, queryId: createQueryId(), sql: text, parameters: fetches.flatMap((fetch) => fetch.parameters) };
}
const compounds = new Map<string, unknown>();

/**
 * A page's statement with the versions its texts are spliced with (`JsonSelection.versions`) read in a last
 * row of their own (`withVersionsRow`). The rows keep their order: a compound's arms run in turn, the page's own
 * in a subquery with its order and limit.
 */
function withVersions(statement: CompiledQuery, versions: string, compound: boolean): CompiledQuery {
  // As many columns as the page's rows: the texts' parts and the sort keys (and a compound's walk).
  const columns = () => (compound ? 1 : 0) + countColumns(statement);
  return { ...statement, sql: withVersionsRow(statement.sql, versions, columns, !compound) };
}

/**
 * `text` (a statement of `columns()` columns) with `versions` (SQL of constants) read by the same statement in a
 * last row of its own: once, not in every row (each value of each row costs its making in JavaScript), and as of
 * the same moment as the rows. `ordered`: the statement has its own order and limit, kept in a subquery. Kept
 * per versions' SQL, then per statement (both the same strings each time, compiled once: their hashes are kept).
 */
export function withVersionsRow(text: string, versions: string, columns: () => number, ordered: boolean): string {
  let texts = versioned.get(versions);
  if (!texts) versioned.set(versions, (texts = new Map()));
  let versionedText = texts.get(text);
  if (versionedText === undefined) {
    versionedText = `${ordered ? `select * from (${text})` : text} union all select ${versions}${', null'.repeat(columns() - 1)}`;
    if (texts.size >= 1000) texts.clear();
    texts.set(text, versionedText);
  }
  return versionedText;
}
const versioned = new Map<string, Map<string, string>>();

/** How many columns a compiled select's rows have (each of its selections one). */
function countColumns(statement: CompiledQuery): number {
  const query = statement.query as { kind: string; selections?: readonly unknown[] };
  if (query.kind !== 'SelectQueryNode' || !query.selections?.length) throw new Error('a page of texts in parts is one select');
  return query.selections.length;
}

/** A walk's sort keys alone (`withKeys` adds them): the first step of a page of several walks read as JSON. */
const keysOnly: Selection = (query) => query;

/**
 * The compiled fetch of one walk's page, per shape: the SQL, and where each of its parameters comes from
 * (the walk's filter, the sort keys the page starts from, the limit). Building and compiling a query with
 * Kysely costs more than running most of ours; a list's shape (its filter's SQL, its order, its selection)
 * recurs with other values, so it is compiled once and filled in afterwards. Kept per selection function:
 * only a selection passed again as the same function (declared once, not a new closure per call) is
 * trusted to select the same thing, and only from its second use (a new closure each time never costs a
 * template). A shape whose parameters are not exactly the filter's, in order, then the keys and the limit
 * (a selection with parameters of its own) is never filled in: it is built every time.
 */
interface Template {
  compiled: CompiledQuery;
  /** Per parameter: the filter's parameter at that index (>= 0), a start key (-1 - index), or the limit (LIMIT). */
  slots: number[];
}
const LIMIT = -1000;
const templates = new WeakMap<Selection, Map<string, Template | null | 'seen'>>();

function fetchOf(
  select: Selection,
  base: CompiledQuery,
  shape: string,
  /** How many start keys the shape takes (0 on a first page). */
  width: number,
  compile: (values: readonly unknown[] | undefined, limit: unknown) => CompiledQuery,
): ((values: readonly unknown[], limit: number) => CompiledQuery) | undefined {
  let shapes = templates.get(select);
  if (!shapes) templates.set(select, (shapes = new Map()));
  const name = `${base.sql}\u0000${shape}`;
  let template = shapes.get(name);
  if (template === undefined) {
    if (shapes.size >= 1000) shapes.clear();
    shapes.set(name, 'seen');
    return undefined;
  }
  if (template === 'seen') {
    template = templateOf(base, width, compile);
    shapes.set(name, template);
  }
  if (!template) return undefined;
  const { compiled, slots } = template;
  return (values, limit) => {
    const parameters = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      parameters[i] = slot >= 0 ? base.parameters[slot] : slot === LIMIT ? limit : values[-1 - slot];
    }
    return { query: compiled.query, queryId: createQueryId(), sql: compiled.sql, parameters };
  };
}

/** Compiles a shape with markers for the start keys and the limit, and finds where every parameter comes from. */
function templateOf(
  base: CompiledQuery,
  width: number,
  compile: (values: readonly unknown[] | undefined, limit: unknown) => CompiledQuery,
): Template | null {
  const markers = Array.from({ length: width }, (_, i) => ({ marker: -1 - i }));
  const limit = { marker: LIMIT };
  const compiled = compile(width ? markers : undefined, limit);
  const slots: number[] = [];
  let next = 0;
  for (const parameter of compiled.parameters) {
    const marker = parameter === limit || markers.includes(parameter as { marker: number }) ? (parameter as { marker: number }).marker : undefined;
    if (marker !== undefined) slots.push(marker);
    else if (next < base.parameters.length && parameter === base.parameters[next]) slots.push(next++);
    else return null;
  }
  // Every marker placed, each once.
  const placed = (from: number, to: number) => slots.filter((s) => s <= from && s > to).length;
  return next === base.parameters.length && placed(-1, LIMIT) === width && placed(LIMIT, -Infinity) === 1 ? { compiled, slots } : null;
}

/**
 * Versions of the store's data per table (SQLite): `of` answers a value that moves whenever any of the
 * tables named may have changed (by this process or another), or undefined when nothing may be kept;
 * `tablesIn` names the tables an SQL statement reads.
 */
export interface TableVersions {
  of(tables: readonly string[]): string | undefined;
  tablesIn(sql: string): readonly string[];
}

/**
 * What a list looked like at a version of the tables it reads: the sort keys found at some offsets (where
 * pages started), so that a page number asked again, or a deeper one, skips from the nearest one instead
 * of from the start. Exact: a list's positions are forgotten as soon as the version of a table its walk
 * reads moves (a write to one of them, by this process or another; a follow does not retire the pages
 * list's), and nothing is kept where the store cannot tell its versions (inside a transaction).
 */
export class Positions {
  private readonly lists = new Map<string, ListPositions>();

  constructor(
    private readonly versions?: TableVersions,
    private readonly maxLists = 2000,
  ) {}

  /** The known positions of one list (its keys' walk, compiled), or undefined when none may be kept. */
  of(compiled: { sql: string; parameters: readonly unknown[] }): ListPositions | undefined {
    const versions = this.versions;
    if (!versions) return undefined;
    const tables = versions.tablesIn(compiled.sql);
    const version = versions.of(tables);
    if (version === undefined) return undefined;
    const name = `${compiled.sql}\u0000${JSON.stringify(compiled.parameters)}`;
    let list = this.lists.get(name);
    if (!list || list.version !== version) {
      if (!list && this.lists.size >= this.maxLists) this.lists.clear();
      list = new ListPositions(version, () => versions.of(tables) === version);
      this.lists.set(name, list);
    }
    return list;
  }
}

/** Sort keys at offsets of one list, in offset order. */
export class ListPositions {
  private readonly offsets: number[] = [];
  private readonly keys: string[][] = [];

  constructor(
    readonly version: string,
    private readonly current: () => boolean,
    private readonly max = 4096,
  ) {}

  /** The known position at or before `offset` nearest to it. */
  nearest(offset: number): { offset: number; keys: string[] } | undefined {
    let lo = 0;
    let hi = this.offsets.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.offsets[mid]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? undefined : { offset: this.offsets[lo - 1]!, keys: this.keys[lo - 1]! };
  }

  /** Keeps what was found, unless the data changed meanwhile. */
  remember(offset: number, keys: string[]): void {
    if (!this.current()) return;
    const at = this.nearest(offset);
    if (at?.offset === offset) return;
    if (this.offsets.length >= this.max) {
      this.offsets.length = 0;
      this.keys.length = 0;
    }
    const i = at ? this.offsets.indexOf(at.offset) + 1 : 0;
    this.offsets.splice(i, 0, offset);
    this.keys.splice(i, 0, keys);
  }
}

/** The tables a kept count moves with: the table it counts, and the pages its dimensions look at. */
const COUNTED_TABLES = new Map<string, readonly string[]>(
  COUNTERS.map((spec) => [spec.list, spec.dims.some((dim) => /\bfrom pages\b/.test(dim)) ? [spec.table, 'pages'] : [spec.table]]),
);
COUNTED_TABLES.set('events.longest_ms', ['events']);

/** The tables the kept counts of these keys move with, or undefined for a key of no known list. */
function countedTables(keys: readonly string[]): string[] | undefined {
  const tables = new Set<string>();
  for (const key of keys) {
    const bar = key.indexOf('|');
    const of = COUNTED_TABLES.get(bar < 0 ? key : key.slice(0, bar));
    if (!of) return undefined;
    for (const table of of) tables.add(table);
  }
  return [...tables].sort();
}

/**
 * The store's paging: `walkPage` with the positions it knows, and the kept counts and other small answers
 * (a Member's secret pages) remembered while the tables they read stand still: exact, like the positions,
 * and nothing is remembered where the versions are unknown (inside a transaction).
 */
export class Pager {
  readonly positions: Positions;
  private readonly memos = new Map<string, { version: string; answer: Promise<unknown> }>();

  constructor(
    private readonly versions?: TableVersions,
    private readonly maxMemos = 10_000,
  ) {
    this.positions = new Positions(versions);
  }

  walk<Row>(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    db: Kysely<any>,
    walks: Walk[],
    select: (query: AnyQuery) => AnyQuery,
    position: Pagination,
    desc = false,
    json?: JsonSelection,
  ): Promise<Walked<Row>> {
    return walkPage<Row>(db, walks, select, position, desc, this.positions, json);
  }

  /**
   * A page of a list and its exact total, the total first: a page number past the end answers no rows
   * without walking (a request for page 300 of a 40-page list costs the kept count only).
   */
  async list<Row>(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    db: Kysely<any>,
    walks: Walk[],
    select: (query: AnyQuery) => AnyQuery,
    position: Pagination,
    total: Promise<number>,
    desc = false,
    json?: JsonSelection,
  ): Promise<Listed<Row>> {
    const n = await total;
    if (!position.cursor && offsetOf(position) >= n) return { rows: [], total: n };
    return { ...(await this.walk<Row>(db, walks, select, position, desc, json)), total: n };
  }

  /**
   * `compute()`, or its answer while the tables it reads have not changed (not named: any table, the data version).
   */
  memo<T>(key: string, tables: readonly string[] | undefined, compute: () => Promise<T>): Promise<T> {
    const versions = this.versions;
    if (!versions) return compute();
    const version = tables ? versions.of(tables) : versions.of([]);
    if (version === undefined) return compute();
    const known = this.memos.get(key);
    if (known && known.version === version) return known.answer as Promise<T>;
    if (!known && this.memos.size >= this.maxMemos) this.memos.clear();
    const answer = compute();
    const entry = { version, answer };
    this.memos.set(key, entry);
    // A failure is not remembered.
    answer.catch(() => this.memos.get(key) === entry && this.memos.delete(key));
    return answer;
  }

  /** The kept counts of several keys (0 for a key never counted). */
  counts(db: Kysely<Database>, keys: string[]): Promise<number[]> {
    return this.memo(`counts\u0000${keys.join('\u0000')}`, countedTables(keys), () => countersOf(db, keys));
  }

  async count(db: Kysely<Database>, key: string): Promise<number> {
    return (await this.counts(db, [key]))[0]!;
  }
}

/**
 * Exact totals kept by the store itself: every counted table has triggers (migration 0005) that add to
 * `list_counts` in the transaction of each insert, delete or update, one row per combination of the
 * dimensions its filters use. A key is the list's name and, for each dimension in order, its value or `*`.
 */
export const counterKey = (list: string, dims: readonly (string | null | undefined)[]): string =>
  `${list}|${dims.map((d) => (d === undefined ? '*' : d === null ? '' : /[*|]/.test(d) ? NO_ROW : d)).join('|')}`;
/**
 * A filter's value that no row has (no id, enum or flag holds `*` or `|`): its key is one no trigger writes, so
 * that `?followable_id=*` counts none, as its list walks none, not every follow (`*` is "any" in a key).
 */
const NO_ROW = '\u0001';

/** The counts of several keys at once (0 for a key never counted). */
export async function countersOf(db: Kysely<Database>, keys: string[]): Promise<number[]> {
  if (keys.length === 0) return [];
  const unique = [...new Set(keys)];
  const rows = await rowsOfRead<{ key: string; n: number | string | bigint }>(
    db,
    db.selectFrom('list_counts').select(['key', 'n']).where('key', 'in', unique).compile(),
  );
  const byKey = new Map(rows.map((r) => [r.key, Number(r.n)]));
  return keys.map((k) => byKey.get(k) ?? 0);
}

export async function counterOf(db: Kysely<Database>, key: string): Promise<number> {
  return (await countersOf(db, [key]))[0]!;
}

/**
 * A filter with one more dimension fixed, or null when the filter already fixes it to another value (that
 * combination matches nothing).
 */
export function narrowed<F extends object>(filter: F, extra: Partial<F>): F | null {
  const fixed = filter as Record<string, unknown>;
  for (const [name, value] of Object.entries(extra))
    if (fixed[name] !== undefined && fixed[name] !== value) return null;
  return { ...filter, ...extra };
}
