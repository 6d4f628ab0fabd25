import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Statuses, comments, likes, gathering events and their answers, notifications with their per-user
 * counters, and the notification fan-out outbox.
 */
export const content: Migration = {
  async up(db: Kysely<any>) {
    // The members of a page (or followers of a user) walked in user order by the fan-out: the old
    // (type, id) index is a prefix of this one.
    await db.schema.dropIndex('follows_followable').execute();
    await db.schema
      .createIndex('follows_followable_user')
      .on('follows')
      .columns(['followable_type', 'followable_id', 'user_id'])
      .execute();

    await db.schema
      .createTable('events')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('name', 'varchar(150)', (c) => c.notNull())
      .addColumn('slug', 'varchar(200)', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('page_id', 'varchar(64)', (c) => c.references('pages.id').onDelete('cascade'))
      .addColumn('start_date', 'varchar(32)', (c) => c.notNull())
      .addColumn('end_date', 'varchar(32)', (c) => c.notNull())
      .addColumn('places_limit', 'integer')
      .addColumn('attendees_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('tickets', 'text', (c) => c.notNull())
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('events_slug_unique').on('events').column('slug').unique().execute();
    await db.schema.createIndex('events_start').on('events').columns(['start_date', 'id']).execute();
    await db.schema.createIndex('events_end').on('events').columns(['end_date', 'start_date', 'id']).execute();
    await db.schema.createIndex('events_user').on('events').columns(['user_id', 'start_date', 'id']).execute();
    await db.schema.createIndex('events_page').on('events').columns(['page_id']).execute();

    await db.schema
      .createTable('event_attendances')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('event_id', 'varchar(64)', (c) => c.notNull().references('events.id').onDelete('cascade'))
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('answer', 'varchar(10)', (c) => c.notNull())
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('event_attendances_event_user')
      .on('event_attendances')
      .columns(['event_id', 'user_id'])
      .unique()
      .execute();
    await db.schema
      .createIndex('event_attendances_event_answer')
      .on('event_attendances')
      .columns(['event_id', 'answer', 'user_id'])
      .execute();
    await db.schema
      .createIndex('event_attendances_user')
      .on('event_attendances')
      .columns(['user_id', 'answer', 'event_id'])
      .execute();

    await db.schema
      .createTable('statuses')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('page_id', 'varchar(64)', (c) => c.references('pages.id').onDelete('cascade'))
      .addColumn('event_id', 'varchar(64)', (c) => c.references('events.id').onDelete('cascade'))
      .addColumn('comments_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('likes_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('statuses_user').on('statuses').columns(['user_id', 'id']).execute();
    await db.schema.createIndex('statuses_page').on('statuses').columns(['page_id', 'id']).execute();
    await db.schema.createIndex('statuses_event').on('statuses').columns(['event_id', 'id']).execute();

    await db.schema
      .createTable('comments')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('status_id', 'varchar(64)', (c) => c.notNull().references('statuses.id').onDelete('cascade'))
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('likes_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('comments_status').on('comments').columns(['status_id', 'id']).execute();

    await db.schema
      .createTable('likes')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('target_type', 'varchar(10)', (c) => c.notNull())
      .addColumn('target_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    // Once per user and target, even when two likes race.
    await db.schema
      .createIndex('likes_target_user_unique')
      .on('likes')
      .columns(['target_type', 'target_id', 'user_id'])
      .unique()
      .execute();

    // What a notification says, written once however many are told (a status to 100,000 members is one
    // row here and 100,000 narrow rows in notifications).
    await db.schema
      .createTable('notification_contents')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('notification_type', 'varchar(40)', (c) => c.notNull())
      .addColumn('action_name', 'varchar(20)', (c) => c.notNull())
      .addColumn('subject_type', 'varchar(20)')
      .addColumn('subject_id', 'varchar(64)')
      .addColumn('subject_slug', 'varchar(200)')
      .addColumn('subject_name', 'varchar(300)', (c) => c.notNull())
      .addColumn('target_type', 'varchar(30)')
      .addColumn('target_id', 'varchar(64)')
      .addColumn('target_slug', 'varchar(200)')
      .addColumn('target_name', 'varchar(300)')
      .addColumn('final_target_type', 'varchar(20)')
      .addColumn('final_target_id', 'varchar(64)')
      .addColumn('final_target_slug', 'varchar(200)')
      .addColumn('final_target_name', 'varchar(300)', (c) => c.notNull())
      .addColumn('link_type', 'varchar(30)', (c) => c.notNull())
      .addColumn('link_id', 'varchar(64)')
      .addColumn('link_slug', 'varchar(200)')
      .addColumn('picture_url', 'varchar(2048)')
      .addColumn('comment_info', 'text', (c) => c.notNull())
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('notifications')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('content_id', 'varchar(64)', (c) => c.notNull().references('notification_contents.id').onDelete('cascade'))
      .addColumn('seen', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    // One per content and user: a fan-out batch run twice notifies nobody twice.
    await db.schema
      .createIndex('notifications_content_user_unique')
      .on('notifications')
      .columns(['content_id', 'user_id'])
      .unique()
      .execute();
    await db.schema.createIndex('notifications_user').on('notifications').columns(['user_id', 'id']).execute();
    await db.schema
      .createIndex('notifications_user_unseen')
      .on('notifications')
      .columns(['user_id', 'id'])
      .where(sql.ref('seen'), '=', 0)
      .execute();

    // Exact totals for X-Total-Count without counting rows, kept in the transaction of every change.
    await db.schema
      .createTable('notification_counters')
      .addColumn('user_id', 'varchar(64)', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('unseen', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();

    // The fan-out outbox: written with its cause, carried out in bounded batches afterwards.
    await db.schema
      .createTable('notification_jobs')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('content_id', 'varchar(64)', (c) => c.notNull().references('notification_contents.id').onDelete('cascade'))
      .addColumn('audiences', 'text', (c) => c.notNull())
      .addColumn('excluded', 'text', (c) => c.notNull())
      .addColumn('audience_index', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('cursor', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .addColumn('lease_until', 'varchar(32)', (c) => c.notNull())
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('notification_jobs_lease').on('notification_jobs').columns(['lease_until', 'id']).execute();
  },
};
