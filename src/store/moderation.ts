import { sql, type Kysely, type Selectable } from 'kysely';
import type { Viewer } from './pages.js';
import type { Database, ModerationQueueTable } from './schema.js';

export type ModerationItemRow = Selectable<ModerationQueueTable>;

/** Where a walk in (created_at, id) order stopped: the last item already seen. */
export interface TimeCursor {
  created_at: string;
  id: string;
}

export interface Slice {
  per_page: number;
  offset: number;
  /** Items after this one only (a cursor instead of an offset). */
  after?: TimeCursor;
}

/**
 * The moderation queue: the waiting access requests and invites of the pages a viewer administers, oldest
 * first. Its rows are written and
 * removed by the membership repositories, with the records themselves.
 */
export function moderationQueueRepo(db: Kysely<Database>) {
  const administered = (viewer: Viewer) => {
    let q = db.selectFrom('moderation_queue');
    if (!viewer.isAdmin) q = q.where('page_owner_id', '=', viewer.id);
    return q;
  };
  return {
    /** One page of the queue: an index range walked in order (see the EXPLAIN test). */
    page(viewer: Viewer, slice: Slice) {
      let q = administered(viewer).selectAll();
      if (slice.after) q = q.where(sql<boolean>`(created_at, id) > (${slice.after.created_at}, ${slice.after.id})`);
      return q.orderBy('created_at').orderBy('id').limit(slice.per_page).offset(slice.offset);
    },
    async list(viewer: Viewer, slice: Slice): Promise<{ rows: ModerationItemRow[]; total: number }> {
      const [rows, counted] = await Promise.all([
        this.page(viewer, slice).execute(),
        administered(viewer)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(counted.n) };
    },
  };
}
export type ModerationQueueRepo = ReturnType<typeof moderationQueueRepo>;
