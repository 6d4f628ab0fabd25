import type { Kysely, Migration } from 'kysely';
import { inOneTransaction } from './steps.js';

/**
 * A status's comments by one author, a snapshot: it imports nothing from the live code.
 *
 * The comments a Member may not see (by authors suspended now) are taken off a status's count. They were counted
 * by testing the author of each of the status's comments, a cost that grew with a popular status's comments in
 * every list that showed it; they are now counted through the suspended, who are few: a range of this index each.
 */
export const commentsByAuthor: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, async () => {
      await db.schema.createIndex('comments_status_author').on('comments').columns(['status_id', 'user_id']).execute();
    });
  },
};
