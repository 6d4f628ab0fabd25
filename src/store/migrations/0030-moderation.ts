import { PostgresAdapter, sql, type Kysely, type Migration } from 'kysely';

/**
 * Moderation (docs/api.md, "Moderating content and people"), a snapshot: it imports nothing from the live code.
 *
 * - `removed_content`: a removed status or comment, kept for Admins only. Removal deletes the live row (so
 *   every list, stream, count and comment list forgets it through the paths that already forget a deleted row)
 *   and writes its copy here with who removed it, when and why.
 * - `suspensions`: one row per suspended user; a row whose `until` is past is over by itself.
 * - `reports`: users' reports of a status, a comment or a user, with the page the content is in (the page's
 *   administrators see its reports) and the user reported or the content's author (who a `suspend` suspends).
 *   One open report per reporter and target, even when two race (a partial unique index).
 */
export const moderation: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('removed_content')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('target_type', 'varchar(10)', (c) => c.notNull())
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('status_id', 'varchar(64)')
      .addColumn('page_id', 'varchar(64)')
      .addColumn('event_id', 'varchar(64)')
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('comments_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('likes_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('removed_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('removed_by', 'varchar(64)', (c) => c.notNull())
      .addColumn('removal_reason', 'text')
      .execute();

    await db.schema
      .createTable('suspensions')
      .addColumn('user_id', 'varchar(64)', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('until', 'varchar(32)')
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('created_by', 'varchar(64)', (c) => c.notNull())
      .execute();
    // Who is suspended now (`until` null or to come) is read by every content read: an index range, not a scan.
    await db.schema.createIndex('suspensions_until').on('suspensions').column('until').execute();

    await db.schema
      .createTable('reports')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('target_type', 'varchar(10)', (c) => c.notNull())
      .addColumn('target_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('target_user_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('page_id', 'varchar(64)')
      .addColumn('excerpt', 'text', (c) => c.notNull())
      .addColumn('reason', 'varchar(16)', (c) => c.notNull())
      .addColumn('comment', 'text')
      .addColumn('state', 'varchar(16)', (c) => c.notNull())
      .addColumn('resolution', 'varchar(16)')
      .addColumn('resolved_by', 'varchar(64)')
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('reports_target').on('reports').columns(['target_type', 'target_id', 'state']).execute();
    await db.schema.createIndex('reports_page').on('reports').columns(['page_id', 'id']).execute();
    await db.schema.createIndex('reports_user').on('reports').columns(['user_id', 'id']).execute();
    await sql`create unique index reports_open_once on reports (user_id, target_type, target_id) where state = 'open'`.execute(db);

    // SQLite: each table's version in `table_versions`, bumped by triggers on every write (as migration 0010 does
    // for the tables before it), so that read caches see these tables change.
    if (!(db.getExecutor().adapter instanceof PostgresAdapter))
      for (const table of ['removed_content', 'suspensions', 'reports']) {
        await sql`insert into table_versions (name, v) values (${table}, 0)`.execute(db);
        const bump = `update table_versions set v = v + 1 where name = '${table}';`;
        for (const event of ['insert', 'update', 'delete'])
          await sql.raw(`create trigger ${table}_version_${event} after ${event} on ${table} begin ${bump} end`).execute(db);
      }
  },
};
