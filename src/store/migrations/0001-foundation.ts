import type { Kysely, Migration } from 'kysely';

/**
 * The three roles that exist from the start (docs/api.md), as this migration wrote them: each resource's
 * permissions in the order the JSON keeps them, and those each role is granted.
 */
const PERMISSIONS: Record<string, readonly string[]> = {
  posts: ['any', 'newsletter', 'edit', 'index', 'create', 'show', 'destroy', 'moderate', 'seo', 'validate'],
  users: ['edit', 'destroy', 'export', 'import', 'multi_sectors', 'index', 'landing', 'show', 'add_roles', 'edit_roles', 'destroy_roles', 'can_use_api'],
  statuses: ['any', 'edit', 'index', 'create', 'show', 'destroy', 'moderate', 'seo', 'landing', 'in_profile', 'publish_as', 'publish_in', 'pin'],
};
const everyday = ['index', 'show', 'create', 'edit', 'destroy'];
const readOnly = ['index', 'show'];
const ROLES: { system_key: string; name: string; grants: Record<string, readonly string[]> | 'all' }[] = [
  { system_key: 'admins', name: 'Admins', grants: 'all' },
  { system_key: 'members', name: 'Members', grants: { posts: everyday, statuses: everyday, users: ['can_use_api', 'index', 'show'] } },
  { system_key: 'visitors', name: 'Visitors', grants: { posts: readOnly, statuses: readOnly, users: readOnly } },
];

const permissionsOf = (grants: Record<string, readonly string[]> | 'all') =>
  JSON.stringify(
    Object.fromEntries(
      Object.entries(PERMISSIONS).map(([resource, names]) => [
        resource,
        Object.fromEntries(names.map((name) => [name, grants === 'all' || (grants[resource] ?? []).includes(name)])),
      ]),
    ),
  );

/** An id as the store makes them (32 hex characters, time-ordered): the milliseconds, a sequence, random bits. */
const idOf = (ms: number, sequence: number) =>
  ms.toString(16).padStart(12, '0') +
  sequence.toString(16).padStart(4, '0') +
  Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString('hex');

/** Users, roles, API keys, page configurations, pages, follows and idempotency keys. */
export const foundation: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('permission_sets')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      .addColumn('system_key', 'varchar(20)')
      .addColumn('show_as_tagline', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('image_url', 'varchar(2048)')
      .addColumn('permissions', 'text', (c) => c.notNull())
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('permission_sets_name_unique').on('permission_sets').column('name').unique().execute();
    await db.schema
      .createIndex('permission_sets_system_key_unique')
      .on('permission_sets')
      .column('system_key')
      .unique()
      .execute();

    await db.schema
      .createTable('users')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('first_name', 'varchar(100)', (c) => c.notNull())
      .addColumn('last_name', 'varchar(100)', (c) => c.notNull())
      .addColumn('nickname', 'varchar(50)', (c) => c.notNull())
      .addColumn('email', 'varchar(254)', (c) => c.notNull())
      .addColumn('password_hash', 'varchar(255)', (c) => c.notNull())
      .addColumn('permission_set_id', 'varchar(64)', (c) => c.notNull().references('permission_sets.id'))
      .addColumn('slug', 'varchar(80)', (c) => c.notNull())
      .addColumn('conditions_accepted_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('confidentiality_accepted_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('users_email_unique').on('users').column('email').unique().execute();
    await db.schema.createIndex('users_nickname_unique').on('users').column('nickname').unique().execute();
    await db.schema.createIndex('users_slug_unique').on('users').column('slug').unique().execute();
    await db.schema.createIndex('users_permission_set_id').on('users').column('permission_set_id').execute();

    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('api_key', 'varchar(100)', (c) => c.notNull())
      .addColumn('secret_hash', 'varchar(255)', (c) => c.notNull())
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('api_keys_api_key_unique').on('api_keys').column('api_key').unique().execute();

    await db.schema
      .createTable('page_configurations')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('pages')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('name', 'varchar(150)', (c) => c.notNull())
      .addColumn('slug', 'varchar(200)', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('privacy', 'varchar(10)', (c) => c.notNull())
      .addColumn('page_configuration_id', 'varchar(64)', (c) => c.notNull().references('page_configurations.id'))
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id'))
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('pages_slug_unique').on('pages').column('slug').unique().execute();
    await db.schema.createIndex('pages_privacy').on('pages').column('privacy').execute();
    await db.schema.createIndex('pages_user_id').on('pages').column('user_id').execute();
    await db.schema.createIndex('pages_page_configuration_id').on('pages').column('page_configuration_id').execute();

    await db.schema
      .createTable('follows')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('followable_type', 'varchar(10)', (c) => c.notNull())
      .addColumn('followable_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('follows_user_followable_unique')
      .on('follows')
      .columns(['user_id', 'followable_type', 'followable_id'])
      .unique()
      .execute();
    await db.schema.createIndex('follows_followable').on('follows').columns(['followable_type', 'followable_id']).execute();

    await db.schema
      .createTable('idempotency_keys')
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('idempotency_key', 'varchar(255)', (c) => c.notNull())
      .addColumn('request_hash', 'varchar(64)', (c) => c.notNull())
      .addColumn('status_code', 'integer', (c) => c.notNull())
      .addColumn('response_body', 'text', (c) => c.notNull())
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['user_id', 'idempotency_key'])
      .execute();

    const now = new Date();
    await db
      .insertInto('permission_sets')
      .values(
        ROLES.map((role, i) => ({
          id: idOf(now.getTime(), i),
          name: role.name,
          system_key: role.system_key,
          show_as_tagline: 0,
          image_url: null,
          permissions: permissionsOf(role.grants),
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
        })),
      )
      .execute();
  },
};
