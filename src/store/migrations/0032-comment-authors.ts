import type { Kysely, Migration } from 'kysely';
import { inOneTransaction } from './steps.js';

/**
 * A status's comments are walked with their authors, a snapshot: it imports nothing from the live code.
 *
 * Comments by an author suspended at the time of the read are hidden from all but Admins, so every walk of a
 * status's comments tests the author: the index carries it after the order, and a walk (a deep page's keys, the
 * count of the hidden ones) reads no row to test it.
 */
export const commentAuthors: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, async () => {
      await db.schema.dropIndex('comments_status').execute();
      await db.schema.createIndex('comments_status').on('comments').columns(['status_id', 'id', 'user_id']).execute();
    });
  },
};
