import type { Insertable, Kysely, Selectable } from 'kysely';
import { onPostgres } from './dialect.js';
import type { AnyDb } from './paging.js';
import type { Database } from './schema.js';

// A table's row by its id, held, inserted or deleted: what most repositories begin with.

/** Rows per insert, ids per `in` list: well under SQLite's limit of bound parameters; longer lists take several. */
export const ROWS_PER_STATEMENT = 500;
/** `items` in slices of `ROWS_PER_STATEMENT`, a statement each (none for none). */
export const chunks = <T>(items: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(items.length / ROWS_PER_STATEMENT) }, (_, i) =>
    items.slice(i * ROWS_PER_STATEMENT, (i + 1) * ROWS_PER_STATEMENT));
/**
 * A table's row by its id. `locked`: the row is locked until the transaction ends, on PostgreSQL (SQLite's writer
 * holds the only write lock already), but not its key: rows that refer to it may still be written meanwhile.
 */
export const byId = <T extends keyof Database>(db: Kysely<Database>, table: T, locked = false) => {
  const lock = locked && onPostgres(db);
  return (id: string) => {
    const q = (db as AnyDb).selectFrom(table as string).selectAll().where('id', '=', id);
    return (lock ? q.forNoKeyUpdate() : q).executeTakeFirst() as Promise<Selectable<Database[T]> | undefined>;
  };
};
/**
 * How a row is held until the transaction ends, on PostgreSQL (SQLite's one writer serializes writes already): `remove`
 * before deleting it; `write` before changing it, its key left free (rows that refer to it may still be written);
 * `share` to keep it from being removed meanwhile.
 */
export type Hold = 'remove' | 'write' | 'share';
/** Holds a table's row by its id (`Hold`): false when it is gone. */
export const holder = <T extends keyof Database>(db: Kysely<Database>, table: T) => {
  const on = onPostgres(db);
  return async (id: string, how: Hold): Promise<boolean> => {
    if (!on) return true;
    const q = (db as AnyDb).selectFrom(table as string).select('id').where('id', '=', id);
    const held = how === 'remove' ? q.forUpdate() : how === 'write' ? q.forNoKeyUpdate() : q.forShare();
    return (await held.executeTakeFirst()) !== undefined;
  };
};
/** Inserts a row, or rows: `ROWS_PER_STATEMENT` a statement (the counts a trigger keeps move once a statement, 0048). */
export const inserter = <T extends keyof Database>(db: Kysely<Database>, table: T) => async (rows: Insertable<Database[T]> | Insertable<Database[T]>[]) => {
  for (const some of chunks([rows].flat() as Insertable<Database[T]>[])) await (db as AnyDb).insertInto(table).values(some).execute();
};
/** Deletes a row by id: false when there was none (another request deleted it first). */
export const deleter = <T extends keyof Database>(db: Kysely<Database>, table: T) => async (id: string) => {
  const deleted = await (db as AnyDb).deleteFrom(table as string).where('id', '=', id).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
};
/**
 * The slugs of a table that are `base` or `base-…`, as one range of its unique slug index: a `LIKE` (case
 * insensitive in SQLite) cannot use the index and would read every row, page creation growing with the
 * community. '-' is followed by '.' in code point order, so `base-…` is the range [`base-`, `base.`).
 */
export const slugsStartingWith = (db: Kysely<Database>, table: 'users' | 'pages' | 'events') => (base: string) =>
  db
    .selectFrom(table)
    .select('slug')
    .where((eb) => eb.or([eb('slug', '=', base), eb.and([eb('slug', '>=', `${base}-`), eb('slug', '<', `${base}.`)])]))
    .execute()
    .then((rows) => rows.map((r) => r.slug));
