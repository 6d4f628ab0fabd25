import type { Kysely, Migration } from 'kysely';
import { inOneTransaction } from './steps.js';

/**
 * The audit log's lists, whatever their filters, as index walks that read no row to test one:
 *
 * - A target alone (`target_id=…`) had no index: `(target_type, target_id, …)` needs the type first, so the
 *   walk went through the whole log in time order, reading each row for its target. Its index now starts
 *   with the id (a target has few entries, and its id says its type).
 * - A type of target alone (`target_type=user`) walked that index by type, out of time order: its entries
 *   were sorted in a temporary B-tree. It has an index of its own in time order.
 * - Each filter's index carries the other filters after the list's order (`created_at, id`): a second
 *   filter (`actor_id=…&action=…`) is tested on the entries the walk passes, where it read each row before.
 *   A count and a skip to a deep page (keys only) then read no row at all. The log is written by
 *   administrative acts only: the wider entries cost little.
 *
 * It runs in one transaction, the migrator's (`steps.ts`), and may run again (each step is idempotent).
 */
export const auditFilters: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, () => replace(db));
  },
};

const FILTERS = ['actor_id', 'action', 'target_type', 'target_id'];

async function replace(db: Kysely<any>): Promise<void> {
  for (const old of ['audit_log_actor', 'audit_log_action', 'audit_log_target']) await db.schema.dropIndex(old).ifExists().execute();
  // From the filter that narrows least to the one that narrows most: without statistics, SQLite's planner
  // ranks alike the indexes that serve as many equalities, and takes the one made last. A list asked for a
  // target then walks that target's few entries, and one asked for an action and its type, the action's.
  for (const [name, first] of [
    ['audit_log_type_filters', 'target_type'],
    ['audit_log_actor_filters', 'actor_id'],
    ['audit_log_action_filters', 'action'],
    ['audit_log_target_filters', 'target_id'],
  ] as const)
    await db.schema
      .createIndex(name)
      .on('audit_log')
      .ifNotExists()
      .columns([first, 'created_at', 'id', ...FILTERS.filter((f) => f !== first)])
      .execute();
}
