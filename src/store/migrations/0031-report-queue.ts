import { sql, type Kysely, type Migration } from 'kysely';
import { inOneTransaction } from './steps.js';

/**
 * Open reports join the moderation queue (docs/api.md, "Moderating content and people"), a snapshot: it imports nothing from the live code.
 *
 * The queue shows a target's open reports as one item, its first report. That item is walked in time order from
 * an index of open reports only: all of them for Admins (`reports_open_time`), those on content in the pages a
 * user created for that user (`reports_open_owner`). A report therefore carries its page's creator, read from the
 * page when it is written, as the queue's own rows do (migration 0006). And the notifications about a status or
 * comment are found by index when it is removed.
 */
export const reportQueue: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, async () => {
      await db.schema.alterTable('reports').addColumn('page_owner_id', 'varchar(64)').execute();
      await sql`update reports set page_owner_id = (select p.user_id from pages p where p.id = reports.page_id)
        where page_id is not null`.execute(db);
      // Partial: the open reports are few beside those settled, which never leave the table.
      await sql`create index reports_open_time on reports (created_at, id) where state = 'open'`.execute(db);
      await sql`create index reports_open_owner on reports (page_owner_id, created_at, id) where state = 'open'`.execute(db);
      // A removal finds the notifications about the content (to stop their fan-out, to stop quoting it) by index.
      await db.schema.createIndex('notification_contents_target').on('notification_contents').columns(['target_type', 'target_id']).execute();
    });
  },
};
