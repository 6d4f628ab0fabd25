import type { Kysely, Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import type { Viewer } from './visibility.js';
import { counted, listPage, type Listed, type Selection } from './paging.js';
import type { Database, ModerationQueueTable } from './schema.js';

export type ModerationItemRow = Selectable<ModerationQueueTable>;

const selectModerationItems: Selection = (q) => q.selectAll('moderation_queue');

/**
 * The moderation queue: the waiting access requests and invites of the pages a viewer administers, oldest
 * first. Its rows are written and removed by the membership repositories, with the records themselves.
 * Paged like every list (`listPage`: page numbers over the index, the `Link` cursor); its total is counted
 * (the queue holds only what waits, and a page's creator administers few).
 */
export function moderationQueueRepo(db: Kysely<Database>) {
  const administered = (viewer: Viewer) => {
    let q = db.selectFrom('moderation_queue');
    if (!viewer.isAdmin) q = q.where('moderation_queue.page_owner_id', '=', viewer.id);
    return q;
  };
  return {
    async list(viewer: Viewer, page: Pagination): Promise<Listed<ModerationItemRow>> {
      return listPage<ModerationItemRow>(
        db,
        [{ query: administered(viewer), keys: ['moderation_queue.created_at', 'moderation_queue.id'] }],
        selectModerationItems,
        page,
        counted(administered(viewer)),
      );
    },
  };
}
export type ModerationQueueRepo = ReturnType<typeof moderationQueueRepo>;
