import type { Kysely, Selectable } from 'kysely';
import type { Database } from './schema.js';

export type SuspensionRow = Selectable<Database['suspensions']>;

export function suspensionsRepo(db: Kysely<Database>) {
  return {
    get(userId: string): Promise<SuspensionRow | undefined> {
      return db.selectFrom('suspensions').selectAll().where('user_id', '=', userId).executeTakeFirst();
    },
    /**
     * Writes the suspension and touches the user's row: the callers kept by the authenticator are re-read when
     * users change (by this process or another), so the suspension applies from the next request. One upsert, not
     * a delete then an insert: two suspensions of one user at once on PostgreSQL both found nothing to delete and the
     * second insert broke the primary key (a 500).
     */
    async put(row: SuspensionRow): Promise<void> {
      const { user_id: _userId, ...fields } = row;
      await db
        .insertInto('suspensions')
        .values(row)
        .onConflict((oc) => oc.column('user_id').doUpdateSet(fields))
        .execute();
      await db.updateTable('users').set({ updated_at: row.created_at }).where('id', '=', row.user_id).execute();
    },
    async delete(userId: string, now: string): Promise<boolean> {
      const deleted = await db.deleteFrom('suspensions').where('user_id', '=', userId).executeTakeFirst();
      await db.updateTable('users').set({ updated_at: now }).where('id', '=', userId).execute();
      return Number(deleted.numDeletedRows) > 0;
    },
  };
}
