import type { Kysely, Migration } from 'kysely';

/** A nickname's key, unique whatever its case, as this migration wrote it (the store writes the same). */
const nicknameKey = (nickname: string): string => nickname.normalize('NFKC').toLowerCase();

/**
 * Nicknames unique whatever their case (a `nickname_key` column), when each API key was last used, and
 * each webhook's circuit breaker (consecutive failed attempts, and until when it is left alone), and an index
 * for due deliveries per webhook.
 */
export const hardening: Migration = {
  async up(db: Kysely<any>) {
    // Checked before any change: a clash is reported with the users concerned, so that an administrator can rename
    // one, rather than failing on a bare constraint.
    const users = (await db.selectFrom('users').select(['id', 'nickname']).orderBy('id').execute()) as {
      id: string;
      nickname: string;
    }[];
    const byKey = new Map<string, { id: string; nickname: string }[]>();
    for (const user of users) byKey.set(nicknameKey(user.nickname), [...(byKey.get(nicknameKey(user.nickname)) ?? []), user]);
    const clashes = [...byKey.values()].filter((group) => group.length > 1);
    if (clashes.length)
      throw new Error(
        `nicknames must now be unique whatever their case, and these differ only by case: ${clashes
          .map((group) => group.map((u) => `"${u.nickname}" (${u.id})`).join(' and '))
          .join('; ')}. Rename all but one of each (UPDATE users SET nickname = … WHERE id = …), then start again`,
      );

    await db.schema.alterTable('users').addColumn('nickname_key', 'varchar(200)').execute();
    for (const user of users)
      await db.updateTable('users').set({ nickname_key: nicknameKey(user.nickname) }).where('id', '=', user.id).execute();
    await db.schema.createIndex('users_nickname_key_unique').on('users').column('nickname_key').unique().execute();

    await db.schema.alterTable('api_keys').addColumn('last_used_at', 'varchar(32)').execute();

    await db.schema
      .alterTable('webhooks')
      .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('webhooks').addColumn('circuit_open_until', 'varchar(32)').execute();
    // The sender looks for due deliveries webhook by webhook.
    await db.schema
      .createIndex('webhook_deliveries_webhook_due')
      .on('webhook_deliveries')
      .columns(['webhook_id', 'status', 'next_attempt_at'])
      .execute();
  },
};
