import { sql, type Kysely, type Migration } from 'kysely';
import { recount, replaceCounterTriggers, type CounterSpec } from './counting.js';
import { inOneTransaction } from './steps.js';

/**
 * Reports' lists flat in the reports kept, a snapshot: it imports nothing from the live code but the frozen trigger
 * generator (`counting.ts`).
 *
 * Settled reports stay, so `GET /reports` counted its total row by row and walked the primary key testing each
 * report against its filters and a Member's "mine or in my pages". Its total is now a kept count per combination
 * of its filters and of the two sides of that rule (the reporter, the page's creator), and each filter walks an
 * index whose leading columns are the filter's selective ones (its state, its target, its reporter, the page's
 * creator) followed by the list's order, the moderation queue's too (`created_at`, `id`); the filters' other
 * columns come after, read off the index. One target's and one reporter's reports are few: their indexes lead
 * with them alone.
 *
 * It runs in one transaction, the migrator's (`steps.ts`), and may run again.
 */
export const REPORT_COUNTS: CounterSpec = {
  list: 'reports',
  table: 'reports',
  dims: ['r.state', 'r.target_type', 'r.target_id', 'r.user_id', 'r.page_owner_id'],
};

const INDEXES: Record<string, string[]> = {
  reports_time: ['created_at', 'id'],
  reports_state_time: ['state', 'created_at', 'id', 'target_type'],
  reports_type_time: ['target_type', 'created_at', 'id', 'state'],
  reports_target_time: ['target_id', 'created_at', 'id', 'target_type', 'state', 'user_id'],
  reports_reporter_time: ['user_id', 'created_at', 'id', 'target_type', 'state', 'target_id'],
  reports_reporter_state_time: ['user_id', 'state', 'created_at', 'id', 'target_type', 'target_id'],
  reports_owner_time: ['page_owner_id', 'created_at', 'id', 'target_type', 'state', 'target_id', 'user_id'],
  reports_owner_state_time: ['page_owner_id', 'state', 'created_at', 'id', 'target_type', 'target_id', 'user_id'],
};

export const reportCounts: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, async (pg) => {
      await replaceCounterTriggers(db, REPORT_COUNTS, pg);
      for (const [key, n] of await recount(db, REPORT_COUNTS))
        await sql`insert into list_counts (key, n) values (${key}, ${n}) on conflict (key) do update set n = excluded.n`.execute(db);
      for (const [name, columns] of Object.entries(INDEXES)) await db.schema.createIndex(name).ifNotExists().on('reports').columns(columns).execute();
      // Served by the indexes above, which lead with the same columns: a reporter's reports (0030), and the open
      // reports that the moderation queue walks, all of them and those in a creator's pages (0031).
      for (const name of ['reports_user', 'reports_open_time', 'reports_open_owner']) await db.schema.dropIndex(name).ifExists().execute();
      // Counts remembered by readers are retired with their table's version (migration 0010).
      if (!pg) await sql`update table_versions set v = v + 1 where name = 'reports'`.execute(db);
    });
  },
};
