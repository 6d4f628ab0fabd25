import { sql, type Kysely, type Migration } from 'kysely';
import { countersFor, replaceCounterTriggers } from './counting.js';
import { inOneTransaction } from './steps.js';

/**
 * Fewer pages written per follow (issue 7: the cost of a write at a million records):
 *
 * - The counts that fix a flag (`CounterSpec.flag`: a follow's or an event's page is secret, a status reaches the
 *   author's followers) are kept for the rows whose flag is 1 only: the lists never read them at 0. A follow of
 *   a page that is not secret moved 16 counts, each most likely on a page of its own at a million follows; it
 *   now moves 8. The triggers of those lists are made again, and the counts at 0 they no longer keep are
 *   removed (`agora admin check` would otherwise find them kept with no row to count).
 * - `follows_followable_user (followable_type, followable_id, user_id)`, from migration 0003, is dropped: the
 *   unique `(user_id, followable_type, followable_id)` answers the same lookups (is this user a follower of this
 *   page), and the lists walk `follows_followable_id_visibility`, which has the same prefix. One b-tree fewer
 *   to write per follow.
 *
 * It runs in one transaction, the migrator's (`steps.ts`), and may run again (each step is idempotent).
 */
export const flagCounts: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, (pg) => apply(db, pg));
  },
};

async function apply(db: Kysely<any>, pg: boolean): Promise<void> {
  for (const spec of countersFor(pg)) {
    if (spec.flag === undefined) continue;
    // The keys are `list|value|…|value`: the flag being the last dimension, a key that fixes it ends `|1` or
    // `|0` (or `|` for none), one that does not ends `|*`.
    if (spec.flag !== spec.dims.length - 1) throw new Error(`${spec.list}: its flag is not its last dimension`);
    await replaceCounterTriggers(db, spec, pg);
    await sql`delete from list_counts where key > ${`${spec.list}|`} and key < ${`${spec.list}}`}
      and key not like '%|*' and key not like '%|1'`.execute(db);
  }
  await db.schema.dropIndex('follows_followable_user').ifExists().execute();
  // SQLite: counts remembered by readers are retired with their table's version (migration 0010).
  if (!pg)
    await sql`update table_versions set v = v + 1 where name in ('follows', 'events', 'statuses')`.execute(db);
}
