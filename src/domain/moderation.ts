import { listResult, type ListResult } from '../shared/schemas/common.js';
import type { ModerationItem, ModerationQueueQuery, ReportItem } from '../shared/schemas/moderation.js';
import type { ModerationItemRow } from '../store/moderation.js';
import { viewerOf, type Caller, type Deps } from './context.js';
import { loadEmbeds } from './records.js';
import { excerptShown } from './report-settlement.js';

/**
 * The moderation queue: the waiting access requests and invites of every page the caller administers (every
 * page for Admins, the pages they created for others), and the open reports on content in those pages (Admins:
 * on users too), one item per reported target, oldest first. Settling goes through the records' own endpoints,
 * so they keep their transitions, follows, notifications, webhooks and audit entries.
 */
export async function listModerationQueue(
  deps: Deps,
  caller: Caller,
  query: ModerationQueueQuery,
): Promise<ListResult<ModerationItem>> {
  const viewer = viewerOf(caller);
  const listed = await deps.store.moderationQueue.list(viewer, query);
  const rows = listed.rows;
  const embeds = await loadEmbeds(
    deps.store,
    caller,
    rows.flatMap((r) => [r.user_id, r.target_user_id]),
    rows.map((r) => r.page_id),
    deps.clock(),
    { users: rows.flatMap((r) => [r.user, r.target_user]), pages: rows.map((r) => r.page) },
  );
  const items: ModerationItem[] = [];
  for (const r of rows) {
    const user = embeds.users.get(r.user_id);
    const page = r.page_id ? embeds.pages.get(r.page_id) : undefined;
    // Users and pages are never deleted, and come in the list's own statement: a guard, not a case that happens.
    if (!user) continue;
    if (r.kind === 'report') items.push(reportItem(r, user, page ?? null, embeds.users, caller));
    else if (page) items.push({ kind: r.kind as 'page_access_request' | 'invite', id: r.id, page, user, created_at: r.created_at });
  }
  return listResult(items, listed);
}

function reportItem(
  r: ModerationItemRow,
  user: ReportItem['user'],
  page: ReportItem['page'],
  users: Map<string, ReportItem['user']>,
  caller: Caller,
): ReportItem {
  const type = r.target_type as ReportItem['target']['type'];
  const author = users.get(r.target_user_id!);
  return {
    kind: 'report',
    id: r.id,
    target: {
      type,
      id: r.target_id!,
      excerpt: excerptShown(caller, r, author),
      user: author ?? null,
    },
    page,
    user,
    reason: r.reason as ReportItem['reason'],
    reports: Number(r.reports),
    created_at: r.created_at,
  };
}
