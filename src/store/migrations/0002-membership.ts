import { sql, type Kysely, type Migration } from 'kysely';

/** Page access requests, invites, webhooks and their delivery outbox. */
export const membership: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('page_access_requests')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('page_id', 'varchar(64)', (c) => c.notNull().references('pages.id').onDelete('cascade'))
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('state', 'varchar(10)', (c) => c.notNull())
      .addColumn('is_validate', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    // Rule 1: at most one waiting request per user and page, even under concurrent requests.
    await db.schema
      .createIndex('page_access_requests_one_waiting')
      .on('page_access_requests')
      .columns(['page_id', 'user_id'])
      .unique()
      .where(sql.ref('state'), '=', 'waiting')
      .execute();
    await db.schema
      .createIndex('page_access_requests_user')
      .on('page_access_requests')
      .columns(['user_id', 'state'])
      .execute();

    await db.schema
      .createTable('invites')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('target_type', 'varchar(10)', (c) => c.notNull())
      .addColumn('target_id', 'varchar(64)', (c) => c.notNull().references('pages.id').onDelete('cascade'))
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('user_target_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('state', 'varchar(10)', (c) => c.notNull())
      .addColumn('is_validate', 'integer')
      .addColumn('is_accepted', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    // Rule 3: at most one waiting invite per invited user and page.
    await db.schema
      .createIndex('invites_one_waiting')
      .on('invites')
      .columns(['target_id', 'user_target_id'])
      .unique()
      .where(sql.ref('state'), '=', 'waiting')
      .execute();
    await db.schema.createIndex('invites_user_target').on('invites').columns(['user_target_id', 'state']).execute();
    await db.schema.createIndex('invites_sender').on('invites').column('user_id').execute();

    await db.schema
      .createTable('webhooks')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('url', 'varchar(2048)', (c) => c.notNull())
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('secret', 'varchar(255)', (c) => c.notNull())
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id'))
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('webhook_id', 'varchar(64)', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('message_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('event', 'varchar(64)', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('status', 'varchar(10)', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('last_attempt_at', 'varchar(32)')
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'varchar(500)')
      .addColumn('delivered_at', 'varchar(32)')
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_due')
      .on('webhook_deliveries')
      .columns(['status', 'next_attempt_at'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_webhook')
      .on('webhook_deliveries')
      .columns(['webhook_id', 'id'])
      .execute();
  },
};
