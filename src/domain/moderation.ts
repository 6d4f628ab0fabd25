import { listResult, type ListResult } from '../shared/schemas/common.js';
import type { ModerationItem, ModerationQueueQuery } from '../shared/schemas/moderation.js';
import type { Caller, Deps } from './context.js';
import { loadEmbeds } from './records.js';

/**
 * The waiting access requests and invites of every page the caller administers (every page for Admins,
 * the pages they created for others), oldest first. Accepting and refusing go through the records' own
 * endpoints, so they keep their transitions, follows, notifications, webhooks and audit entries.
 */
export async function listModerationQueue(
  deps: Deps,
  caller: Caller,
  query: ModerationQueueQuery,
): Promise<ListResult<ModerationItem>> {
  const viewer = { id: caller.user.id, isAdmin: caller.isAdmin };
  const listed = await deps.store.moderationQueue.list(viewer, query);
  const rows = listed.rows;
  const embeds = await loadEmbeds(
    deps.store,
    caller,
    rows.map((r) => r.user_id),
    rows.map((r) => r.page_id),
  );
  const items = rows.map((r) => ({
    kind: r.kind as ModerationItem['kind'],
    id: r.id,
    page: embeds.page(r.page_id),
    user: embeds.user(r.user_id),
    created_at: r.created_at,
  }));
  return listResult(items, listed);
}
