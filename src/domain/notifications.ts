import { clip, forbidden, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type {
  ActionName,
  ListNotificationsQuery,
  MarkNotificationsSeenInput,
  Notification,
  NotificationType,
} from '../shared/schemas/notifications.js';
import { SYSTEM_ROLES } from '../store/default-roles.js';
import type { Audience, Content, NotificationContentRow, NotificationOwn, NotificationRow, SubjectSuspension } from '../store/notifications.js';
import type { Store } from '../store/store.js';
import { nowIso, type Caller, type Deps } from './context.js';
import { inForce } from './users.js';

/** A thing a notification names: who acted, what was acted on, where, and where to go. */
export interface Ref {
  type: string;
  id: string;
  slug?: string | null;
  name?: string | null;
}

export interface NotificationDraft {
  type: NotificationType;
  action: ActionName;
  subject: Ref & { name: string };
  target: Ref | null;
  finalTarget: Ref & { name: string };
  link: Ref;
  comment?: { id: string; content: string };
}

const EXCERPT = 140;
export const excerpt = (text: string, max = EXCERPT): string => clip(text.replace(/\s+/g, ' ').trim(), max);

function toContent(draft: NotificationDraft, now: string): NotificationContentRow {
  return {
    id: newId(),
    notification_type: draft.type,
    action_name: draft.action,
    subject_type: draft.subject.type,
    subject_id: draft.subject.id,
    subject_slug: draft.subject.slug ?? null,
    subject_name: draft.subject.name,
    target_type: draft.target?.type ?? null,
    target_id: draft.target?.id ?? null,
    target_slug: draft.target?.slug ?? null,
    target_name: draft.target?.name ?? null,
    final_target_type: draft.finalTarget.type,
    final_target_id: draft.finalTarget.id,
    final_target_slug: draft.finalTarget.slug ?? null,
    final_target_name: draft.finalTarget.name,
    link_type: draft.link.type,
    link_id: draft.link.id,
    link_slug: draft.link.slug ?? null,
    picture_url: null,
    comment_info: JSON.stringify(draft.comment ? { id: draft.comment.id, excerpt: excerpt(draft.comment.content) } : {}),
    created_at: now,
  };
}

/**
 * Notifies a few named users at once, inside the caller's transaction; nobody is notified of their own
 * action (`actors`: the acting user and the caller).
 */
export async function notifyUsers(
  tx: Store,
  now: string,
  draft: NotificationDraft,
  userIds: string[],
  actors: string[],
): Promise<void> {
  const skip = new Set(actors);
  const recipients = [...new Set(userIds)].filter((id) => !skip.has(id));
  if (recipients.length === 0) return;
  const content = toContent(draft, now);
  await tx.notifications.insertContent(content);
  await tx.notifications.insertFor(
    content.id,
    recipients.map((userId) => ({ userId, id: newId() })),
    now,
  );
}

/**
 * Records a fan-out to whole audiences (a page's members, a user's followers) in the caller's
 * transaction; the fan-out worker carries it out in bounded batches after the commit, so the writer never
 * holds the write lock for the whole audience, and a restart in between loses nothing.
 */
export async function enqueueFanOut(
  tx: Store,
  now: string,
  draft: NotificationDraft,
  audiences: Audience[],
  actors: string[],
): Promise<void> {
  const content = toContent(draft, now);
  await tx.notifications.insertContent(content);
  await tx.notificationJobs.insert({
    id: newId(),
    content_id: content.id,
    audiences: JSON.stringify(audiences),
    excluded: JSON.stringify([...new Set(actors)]),
    audience_index: 0,
    cursor: '',
    lease_until: now,
    created_at: now,
  });
}

export type BatchOutcome = 'more' | 'done' | 'lost';

/**
 * One batch of a fan-out, in one transaction: the next recipients of the current audience are notified and
 * the job's cursor moves past them, together, so a crash repeats nothing and loses nothing. `lease` is the
 * claim this process holds; a job claimed by another since is left alone ('lost').
 */
export async function runFanOutBatch(
  deps: Deps,
  jobId: string,
  lease: string,
  nextLease: string,
  batchSize: number,
): Promise<BatchOutcome> {
  return deps.store.transaction(async (tx) => {
    const job = await tx.notificationJobs.getForUpdate(jobId);
    if (!job || job.lease_until !== lease) return 'lost';
    const audiences = JSON.parse(job.audiences) as Audience[];
    const audience = audiences[job.audience_index];
    if (!audience) {
      await tx.notificationJobs.delete(job.id);
      return 'done';
    }
    const next = await tx.notificationJobs.nextRecipients(audience, job.cursor, job.created_at, batchSize);
    const excluded = new Set(JSON.parse(job.excluded) as string[]);
    const recipients = next.filter((id) => !excluded.has(id)).map((userId) => ({ userId, id: newId() }));
    await tx.notifications.insertFor(job.content_id, recipients, nowIso(deps));
    const finished = next.length < batchSize;
    const audienceIndex = finished ? job.audience_index + 1 : job.audience_index;
    if (audienceIndex >= audiences.length) {
      await tx.notificationJobs.delete(job.id);
      return 'done';
    }
    await tx.notificationJobs.advance(job.id, {
      audience_index: audienceIndex,
      cursor: finished ? '' : next[next.length - 1]!,
      lease_until: nextLease,
    });
    return 'more';
  });
}

/** Only the user and project administrators read or mark a user's notifications. */
export function requireSelfOrAdmin(caller: Caller, userId: string, what: string): void {
  if (caller.user.id !== userId && !caller.isAdmin) throw forbidden(`You may ${what} only your own notifications`);
}

async function requireUser(store: Store, userId: string) {
  const user = await store.users.getById(userId);
  if (!user) throw notFound('User');
  return user;
}

/** What `actionableIds` reads of a notification: whose it is, and what it is about. */
type Actionable = Pick<NotificationRow, 'id' | 'user_id' | 'notification_type' | 'target_id'>;
const ACTIONABLE_TYPES: ReadonlySet<string> = new Set(['page_access_request', 'invite']);
/** The kinds that quote what their subject wrote: a status posted, a comment (a like quotes the reader's own). */
const QUOTES_SUBJECT: ReadonlySet<string> = new Set(['status', 'comment']);

/**
 * Which of the rows the reader (the notified user) may still act on: a request or invite they may still
 * accept or refuse. Once it is settled, it no longer is.
 */
async function actionableIds(store: Store, rows: readonly Actionable[]): Promise<Set<string>> {
  const actionable = rows.filter((r) => ACTIONABLE_TYPES.has(r.notification_type) && r.target_id);
  const open = new Set<string>();
  if (actionable.length > 0) {
    const readers = new Map((await store.users.getByIds([...new Set(actionable.map((r) => r.user_id))])).map((u) => [u.id, u]));
    const [requests, invites] = await Promise.all([
      store.accessRequests.getByIds(actionable.filter((r) => r.notification_type === 'page_access_request').map((r) => r.target_id!)),
      store.invites.getByIds(actionable.filter((r) => r.notification_type === 'invite').map((r) => r.target_id!)),
    ]);
    const waiting = new Map<string, string>([
      ...requests.filter((r) => r.state === 'waiting').map((r) => [r.id, r.page_id] as [string, string]),
      ...invites.filter((i) => i.state === 'waiting').map((i) => [i.id, i.target_id] as [string, string]),
    ]);
    const pages = new Map((await store.pages.getByIds([...new Set(waiting.values())])).map((p) => [p.id, p]));
    for (const row of actionable) {
      const page = pages.get(waiting.get(row.target_id!) ?? '');
      const reader = readers.get(row.user_id);
      if (page && reader && (reader.role_system_key === SYSTEM_ROLES.admins || page.user_id === reader.id)) open.add(row.id);
    }
  }
  return open;
}

/** What a notification says of its content, in the record's order: the fields before `permissions`. */
const contentBefore = (r: Content) => ({
  action_name: r.action_name as Notification['action_name'],
  link_type: r.link_type,
  notification_type: r.notification_type as Notification['notification_type'],
  subject_name: r.subject_name,
  final_target_name: r.final_target_name,
  comment_info: JSON.parse(r.comment_info) as Notification['comment_info'],
});
/** … and the fields after it. */
const contentAfter = (r: Content) => ({
  target_name: r.target_name,
  picture_url: r.picture_url,
  link_id: r.link_id,
  subject_id: r.subject_id,
  subject_type: r.subject_type,
  subject_slug: r.subject_slug,
  link_slug: r.link_slug,
  target_type: r.target_type,
  target_id: r.target_id,
  target_slug: r.target_slug,
  final_target_type: r.final_target_type,
  final_target_id: r.final_target_id,
  final_target_slug: r.final_target_slug,
});

/** Notification records, `permissions` worked out for the reader (see `actionableIds`). */
export async function toNotificationRecords(store: Store, rows: readonly (NotificationOwn & Content & SubjectSuspension)[], now: Date): Promise<Notification[]> {
  const open = await actionableIds(store, rows);
  return rows.map((row) => {
    // What a suspended author wrote is hidden from all but Admins; a notification, whoever reads it, does not quote
    // it while the suspension lasts, as it does not quote removed content (Admins read the content itself).
    const hidden = row.subject_suspended !== null && inForce({ until: row.subject_suspended_until }, now) && QUOTES_SUBJECT.has(row.notification_type);
    const r = hidden ? { ...row, target_name: null, comment_info: '{}' } : row;
    return {
      id: r.id,
      user_id: r.user_id,
      seen: r.seen === 1,
      created_at: r.created_at,
      updated_at: r.updated_at,
      ...contentBefore(r),
      permissions: open.has(r.id) ? ['accept', 'refuse'] : [],
      ...contentAfter(r),
    };
  });
}

/** A page of the user's notifications, newest first, and the total for `X-Total-Count`. */
export async function listNotifications(
  deps: Deps,
  caller: Caller,
  userId: string,
  query: ListNotificationsQuery,
): Promise<{ records: Notification[]; total: number; next?: string[] }> {
  requireSelfOrAdmin(caller, userId, 'read');
  // The caller was just found (as the store stands): only another user's may be missing.
  if (caller.user.id !== userId) await requireUser(deps.store, userId);
  const listed = await deps.store.notifications.list(userId, query.status === 'unseen', query);
  return { records: await toNotificationRecords(deps.store, listed.rows, deps.clock()), total: listed.total, next: listed.next };
}

/** Marks all unseen notifications seen, or only those named; ids of other users' notifications change nothing. */
export async function markNotificationsSeen(
  deps: Deps,
  caller: Caller,
  userId: string,
  input: MarkNotificationsSeenInput,
): Promise<{ updated: number }> {
  requireSelfOrAdmin(caller, userId, 'mark');
  await requireUser(deps.store, userId);
  const ids = input.notification_ids === undefined ? undefined : [...new Set(input.notification_ids)];
  const updated = await deps.store.transaction((tx) => tx.notifications.markSeen(userId, ids, nowIso(deps)));
  return { updated };
}

/**
 * For the live stream: checks who may listen, and answers where it starts: after the notification named by
 * `Last-Event-ID`, else after the newest. A stream walks a user's notifications by their sequence number
 * (`seq`, in commit order), not by id: see the store's `insertFor`.
 */
export async function openNotificationStream(
  deps: Deps,
  caller: Caller,
  userId: string,
  resumeAfter?: string,
  /** Called once the caller may read the stream and before the store is: a stream one too many is refused there, unread. */
  admit: () => void = () => {},
): Promise<number> {
  requireSelfOrAdmin(caller, userId, 'read');
  admit();
  await requireUser(deps.store, userId);
  if (resumeAfter) return deps.store.notifications.seqAfter(userId, resumeAfter);
  return (await deps.store.notifications.latestSeqs([userId])).get(userId) ?? 0;
}

/**
 * The user's notifications after the one numbered `afterSeq`, oldest first, each with its number, and the number
 * of the last one (`afterSeq` when there is none).
 */
export async function notificationsAfter(
  deps: Deps,
  userId: string,
  afterSeq: number,
  limit = 100,
): Promise<{ notifications: { seq: number; notification: Notification }[]; lastSeq: number }> {
  const rows = await deps.store.notifications.listAfter(userId, afterSeq, limit);
  const records = await toNotificationRecords(deps.store, rows, deps.clock());
  return {
    notifications: records.map((notification, i) => ({ seq: Number(rows[i]!.seq), notification })),
    lastSeq: rows.length ? Number(rows[rows.length - 1]!.seq) : afterSeq,
  };
}

/** The ids of every project administrator (role Admins): they administer every page. */
export const projectAdminIds = (store: Store): Promise<string[]> => store.users.adminIds();

/** How users, pages and events are named in notifications. */
export const userRef = (u: { id: string; slug: string; first_name: string; last_name: string }): Ref & { name: string } => ({
  type: 'User',
  id: u.id,
  slug: u.slug,
  name: `${u.first_name} ${u.last_name}`,
});
export const pageRef = (p: { id: string; slug: string; name: string }): Ref & { name: string } => ({
  type: 'Page',
  id: p.id,
  slug: p.slug,
  name: p.name,
});
export const eventRef = (e: { id: string; slug: string; name: string }): Ref & { name: string } => ({
  type: 'Event',
  id: e.id,
  slug: e.slug,
  name: e.name,
});
