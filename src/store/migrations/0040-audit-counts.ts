import { sql, type Kysely, type Migration } from 'kysely';
import { recount, replaceCounterTriggers, type CounterSpec } from './counting.js';
import { inOneTransaction } from './steps.js';

/**
 * The audit log's total kept, a snapshot: it imports nothing from the live code but the frozen trigger generator
 * (`counting.ts`).
 *
 * `GET /audit_log` counted its total on an index (0016): for the whole log, or an actor's, or an action's, every
 * entry ever written, one by one, and the log only grows. It is now a kept count per combination of the actor,
 * the action and the type of target (a few keys an actor, an action or a type, not one an entry). A target's few
 * entries, and a time window's, are still counted on their index (their keys would grow with the entries).
 *
 * It runs in one transaction, the migrator's (`steps.ts`), and may run again.
 */
export const AUDIT_COUNTS: CounterSpec = {
  list: 'audit_log',
  table: 'audit_log',
  dims: ['r.actor_id', 'r.action', 'r.target_type'],
};

export const auditCounts: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, async (pg) => {
      await replaceCounterTriggers(db, AUDIT_COUNTS, pg);
      for (const [key, n] of await recount(db, AUDIT_COUNTS))
        await sql`insert into list_counts (key, n) values (${key}, ${n}) on conflict (key) do update set n = excluded.n`.execute(db);
      // Counts remembered by readers are retired with their table's version (migration 0010).
      if (!pg) await sql`update table_versions set v = v + 1 where name = 'audit_log'`.execute(db);
    });
  },
};
