import { createQueryId, type Compilable, type CompiledQuery, type Kysely } from 'kysely';
import { dialectOf, type Dialect } from './dialect.js';
import { rowsOfRead } from './paging.js';

/**
 * A statement built and compiled once per dialect, then run with values: what a hot write path (a follow: the
 * follow, a notification's content, its recipient's counter and row) and its single reads cost in Kysely's
 * building and compiling (about a fifth of a follow's CPU) is paid once instead of on every call.
 *
 * `build` gets the values as placeholders (`p.name`) and must use each as a value only: bound, never written into
 * the SQL (`sql.lit`, `fixed`), never looked at (`p.v ?? …`, `p.v ? … : …`), never compared with `is` (which takes
 * no parameter on PostgreSQL). A statement whose shape depends on its values is built as before, not here. The
 * compiled statement's parameters are then each a placeholder, filled from the values of each call by name, or a
 * constant the builder wrote itself. A placeholder looked at but not bound fails when the statement is built; a
 * value left undefined fails when it is run (bound, it would write NULL where Kysely leaves an undefined column
 * out of an INSERT and its default applies).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function prepared<V extends Record<string, unknown>, Row = any>(build: (db: Kysely<any>, p: V) => Compilable<Row>): Prepared<V, Row> {
  const compiled: Partial<Record<Dialect, Template>> = {};
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const templateFor = (db: Kysely<any>): Template => {
    const dialect = dialectOf(db);
    return (compiled[dialect] ??= template(db, build as (db: Kysely<unknown>, p: Record<string, unknown>) => Compilable<unknown>));
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const compile = (db: Kysely<any>, values: V): CompiledQuery<Row> => {
    const t = templateFor(db);
    const parameters = new Array<unknown>(t.sources.length);
    for (let i = 0; i < parameters.length; i++) {
      const source = t.sources[i]!;
      if (typeof source === 'string') {
        const value = values[source];
        if (value === undefined) throw new Error(`prepared statement: no value for "${source}" in ${t.sql}`);
        parameters[i] = value;
      } else parameters[i] = source.constant;
    }
    return { query: t.query, queryId: createQueryId(), sql: t.sql, parameters } as CompiledQuery<Row>;
  };
  return {
    compile,
    async execute(db, values) {
      return (await db.executeQuery(compile(db, values))).rows as Row[];
    },
    async first(db, values) {
      return (await db.executeQuery(compile(db, values))).rows[0] as Row | undefined;
    },
    async read(db, values) {
      return rowsOfRead<Row>(db, compile(db, values));
    },
    async readFirst(db, values) {
      return (await rowsOfRead<Row>(db, compile(db, values)))[0];
    },
  };
}

export interface Prepared<V, Row> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  compile(db: Kysely<any>, values: V): CompiledQuery<Row>;
  /** Runs it (on `db`: the store's connection or a transaction's): its rows (none for a write without RETURNING). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  execute(db: Kysely<any>, values: V): Promise<Row[]>;
  /** Runs it: its first row. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  first(db: Kysely<any>, values: V): Promise<Row | undefined>;
  /**
   * A read's rows, as `rowsOfRead` reads: outside a transaction straight from SQLite (committed data only:
   * `CommittedReads`), inside one through the transaction.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  read(db: Kysely<any>, values: V): Promise<Row[]>;
  /** A read's first row, read as `read` reads. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readFirst(db: Kysely<any>, values: V): Promise<Row | undefined>;
}

/** Where each parameter comes from: a value's name, or a constant of the statement's own. */
type Source = string | { constant: unknown };
interface Template {
  sql: string;
  query: CompiledQuery['query'];
  sources: Source[];
}

/** A value's stand-in while the statement is built. */
class Placeholder {
  constructor(readonly name: string) {}
}

function template(db: Kysely<unknown>, build: (db: Kysely<unknown>, p: Record<string, unknown>) => Compilable<unknown>): Template {
  const used = new Set<string>();
  const placeholders = new Proxy({} as Record<string, unknown>, {
    get(_, name) {
      if (typeof name !== 'string') return undefined;
      used.add(name);
      return new Placeholder(name);
    },
  });
  const compiled = build(db, placeholders).compile();
  const sources: Source[] = compiled.parameters.map((p) => (p instanceof Placeholder ? p.name : { constant: p }));
  const bound = new Set(sources.filter((s): s is string => typeof s === 'string'));
  for (const name of used)
    if (!bound.has(name)) throw new Error(`prepared statement: the value "${name}" is not a parameter of ${compiled.sql}`);
  return { sql: compiled.sql, query: compiled.query, sources };
}
