import { sql, type Kysely, type Migration } from 'kysely';
import { recount, replaceCounterTriggers, type CounterSpec } from './counting.js';
import { inOneTransaction } from './steps.js';

/**
 * Removed content listed for Admins, newest removal first, a snapshot: it imports nothing from the live code but the
 * frozen trigger generator (`counting.ts`). A walk per filter (all, by type, by author, by who removed it), each in
 * removal order; the total a kept count per combination of the three.
 *
 * It runs in one transaction, the migrator's (`steps.ts`), and may run again.
 */
export const REMOVED_COUNTS: CounterSpec = {
  list: 'removed_content',
  table: 'removed_content',
  dims: ['r.target_type', 'r.user_id', 'r.removed_by'],
};

export const removedList: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, async (pg) => {
      // Each walk in removal order, the other filters' columns after it: tested on the entries, never on the rows.
      const filters = ['target_type', 'user_id', 'removed_by'];
      const index = (name: string, by?: string) =>
        db.schema
          .createIndex(name)
          .ifNotExists()
          .on('removed_content')
          .columns([...(by ? [by] : []), 'removed_at', 'id', ...filters.filter((f) => f !== by)])
          .execute();
      await index('removed_content_by_removal');
      await index('removed_content_by_type', 'target_type');
      await index('removed_content_by_author', 'user_id');
      await index('removed_content_by_remover', 'removed_by');
      await replaceCounterTriggers(db, REMOVED_COUNTS, pg);
      for (const [key, n] of await recount(db, REMOVED_COUNTS))
        await sql`insert into list_counts (key, n) values (${key}, ${n}) on conflict (key) do update set n = excluded.n`.execute(db);
      // Counts remembered by readers are retired with their table's version (migration 0010).
      if (!pg) await sql`update table_versions set v = v + 1 where name = 'removed_content'`.execute(db);
    });
  },
};
