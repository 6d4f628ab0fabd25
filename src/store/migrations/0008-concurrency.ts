import { sql, type Kysely, type Migration } from 'kysely';

/**
 * What several `agora serve` processes on one database need from the schema itself, not from one writer:
 *
 * - Role names unique whatever their case, by a unique index on `lower(name)` (it replaces 0005's plain one):
 *   two processes creating `Mods` and `mods` at once end with one of them refused.
 * - A per-user sequence number on notifications (`seq`), taken from the user's counter row in the inserting
 *   transaction. That row stays locked until the transaction commits, so a user's numbers become visible in
 *   order: the live stream resumes by number, never skipping a notification committed late (ids are minted
 *   before commit, and on PostgreSQL two transactions may commit in the other order).
 *
 * Plain SQL understood by SQLite (3.33 and later: `update … from`) and PostgreSQL alike.
 */
export const concurrency: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.dropIndex('permission_sets_lower_name').ifExists().execute();
    await db.schema
      .createIndex('permission_sets_lower_name_unique')
      .on('permission_sets')
      .expression(sql`lower(name)`)
      .unique()
      .execute();

    await db.schema.alterTable('notifications').addColumn('seq', 'integer').execute();
    await sql`update notifications set seq = r.n
      from (select id, row_number() over (partition by user_id order by id) as n from notifications) as r
      where notifications.id = r.id`.execute(db);
    await db.schema.createIndex('notifications_user_seq').on('notifications').columns(['user_id', 'seq']).unique().execute();

    await db.schema
      .alterTable('notification_counters')
      .addColumn('seq', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`update notification_counters set seq = coalesce((select max(n.seq) from notifications as n
      where n.user_id = notification_counters.user_id), 0)`.execute(db);
  },
};
