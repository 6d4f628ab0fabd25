import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The audit log of administrative acts, and the moderation queue: one narrow row per waiting access request
 * or invite, carrying its page's creator, so that "the waiting items of the pages I administer, oldest
 * first" is one index range walked in order, whoever asks.
 */
export const audit: Migration = {
  async up(db: Kysely<any>) {
    // No foreign keys: the log outlives the users and records it names.
    await db.schema
      .createTable('audit_log')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('actor_id', 'varchar(64)')
      .addColumn('action', 'varchar(64)', (c) => c.notNull())
      .addColumn('target_type', 'varchar(40)', (c) => c.notNull())
      .addColumn('target_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('summary', 'varchar(500)', (c) => c.notNull())
      .addColumn('request_id', 'varchar(128)')
      .execute();
    // Newest first, whole or narrowed by one filter; a second filter is checked along the walk.
    await db.schema.createIndex('audit_log_time').on('audit_log').columns(['created_at', 'id']).execute();
    await db.schema.createIndex('audit_log_actor').on('audit_log').columns(['actor_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('audit_log_action').on('audit_log').columns(['action', 'created_at', 'id']).execute();
    await db.schema
      .createIndex('audit_log_target')
      .on('audit_log')
      .columns(['target_type', 'target_id', 'created_at', 'id'])
      .execute();

    await db.schema
      .createTable('moderation_queue')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('kind', 'varchar(30)', (c) => c.notNull())
      .addColumn('page_id', 'varchar(64)', (c) => c.notNull().references('pages.id').onDelete('cascade'))
      .addColumn('page_owner_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('moderation_queue_time').on('moderation_queue').columns(['created_at', 'id']).execute();
    await db.schema
      .createIndex('moderation_queue_owner')
      .on('moderation_queue')
      .columns(['page_owner_id', 'created_at', 'id'])
      .execute();
    // What is waiting already joins the queue.
    await sql`insert into moderation_queue (id, kind, page_id, page_owner_id, user_id, created_at)
      select r.id, 'page_access_request', r.page_id, p.user_id, r.user_id, r.created_at
      from page_access_requests r join pages p on p.id = r.page_id where r.state = 'waiting'`.execute(db);
    await sql`insert into moderation_queue (id, kind, page_id, page_owner_id, user_id, created_at)
      select i.id, 'invite', i.target_id, p.user_id, i.user_target_id, i.created_at
      from invites i join pages p on p.id = i.target_id where i.state = 'waiting'`.execute(db);
  },
};
