import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * The slugs of a table that are `base` or `base-…`, as one range of its unique slug index: a `LIKE` (case
 * insensitive in SQLite) cannot use the index and would read every row, page creation growing with the
 * community. '-' is followed by '.' in code point order, so `base-…` is the range [`base-`, `base.`).
 */
export async function slugsStartingWith(db: Kysely<Database>, table: 'users' | 'pages' | 'events', base: string): Promise<string[]> {
  const rows = await db
    .selectFrom(table)
    .select('slug')
    .where((eb) => eb.or([eb('slug', '=', base), eb.and([eb('slug', '>=', `${base}-`), eb('slug', '<', `${base}.`)])]))
    .execute();
  return rows.map((r) => r.slug);
}
