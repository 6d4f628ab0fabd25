import type { Kysely, Migration } from 'kysely';
import { inOneTransaction } from './steps.js';

/**
 * A status's or comment's likes are listed oldest first, a snapshot: it imports nothing from the live code.
 *
 * The unique index (target, user) finds one user's like; the list walks the target's likes in id order, with the
 * user it embeds, reading no row.
 */
export const likesList: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, async () => {
      await db.schema.createIndex('likes_target').on('likes').columns(['target_type', 'target_id', 'id', 'user_id']).execute();
    });
  },
};
