import { sql, type Kysely, type Migration } from 'kysely';
import { countersFor, replaceCounterTriggers } from './counting.js';
import { inOneTransaction } from './steps.js';

/**
 * Fewer counts moved per follow (issue 7: a follow's cost at a million records). A follow moved eight kept counts;
 * it now moves five (`unkept` of the follows' `CounterSpec`). Not kept any more:
 *
 * - a user's follows of one page or user (`follows|T|F|U|…`, with or without the type). Each new follow added
 *   such a key, most likely on a page of its own among millions, yet the count is none or one a type: the list
 *   looks it up on the unique index instead.
 * - a followable's follows without its type (`follows|*|F|…`), with or without the user: ids are unique across
 *   users and pages, so the list adds the counts of the two types.
 *
 * The follows' triggers are made again from the specification and the keys it no longer keeps are removed (else
 * `agora admin check` would find them kept with no row to count). At a million follows, some millions of keys:
 * the one write of this migration that grows with the store.
 *
 * It runs in one transaction, the migrator's (`steps.ts`), and may run again.
 */
export const followPairs: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, (pg) => apply(db, pg));
  },
};

async function apply(db: Kysely<any>, pg: boolean): Promise<void> {
  const spec = countersFor(pg).find((s) => s.list === 'follows')!;
  await replaceCounterTriggers(db, spec, pg);
  // `follows|type|followable|user|flag`, each value or `*` (ids are hex: no `*`, `|`, `%` or `_`): keys of the
  // followable without its type, and keys that fix all three (none of them `*`).
  await sql`delete from list_counts where key > 'follows|' and key < 'follows}'
    and ((key like 'follows|*|%' and key not like 'follows|*|*|%') or key not like '%|*|%')`.execute(db);
  // SQLite: counts remembered by readers are retired with their table's version (migration 0010).
  if (!pg) await sql`update table_versions set v = v + 1 where name = 'follows'`.execute(db);
}
