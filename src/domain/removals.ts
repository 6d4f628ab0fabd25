import { conflict, ErrorCode, forbidden, notFound } from '../shared/errors.js';
import { listResult, type ListResult } from '../shared/schemas/common.js';
import type { Comment } from '../shared/schemas/content.js';
import type { ListRemovedContentQuery, RemovedContent } from '../shared/schemas/removals.js';
import type { CommentRow, StatusRow } from '../store/content.js';
import type { Store } from '../store/store.js';
import { recordAudit } from './audit.js';
import { can, requireAdmin, requirePermission } from './permissions.js';
import { closed, holdContent, knownComment, knownStatus, readableComment, removedForAdmin } from './content-access.js';
import { placeOf, removedFields, requireLikeReadable, toCommentRecords } from './content.js';
import { inTurn, nowIso, viewerOf, type Caller, type Deps } from './context.js';
import { excerpt, notifyUsers, userRef } from './notifications.js';
import { settleReportsIn } from './report-settlement.js';

/**
 * Removing content (docs/api.md, "Moderating content and people"): a status or comment is removed by its author
 * (their role granting `statuses.destroy`), an administrator of the page it is in (the page's creator), or an Admin.
 * It vanishes at once for everyone (the live row goes, a copy stays for Admins); a status takes its comments and
 * likes with it. Someone else's removal tells the author and is audited, and whoever removes it resolves the open
 * reports on what went, in the removal's transaction.
 */

/** The page a status is in: its own, or its event's. */
export async function pageOfStatus(store: Store, status: StatusRow): Promise<string | null> {
  if (status.page_id) return status.page_id;
  if (status.event_id) return (await store.events.getById(status.event_id))?.page_id ?? null;
  return null;
}

/**
 * Whether the caller moderates the content of a page (docs/api.md, "Moderating content and people"): an Admin
 * anywhere, its creator in it.
 */
export async function moderatesPage(store: Store, caller: Caller, pageId: string | null): Promise<boolean> {
  if (caller.isAdmin) return true;
  return pageId !== null && (await store.pages.getById(pageId))?.user_id === caller.user.id;
}

/**
 * Whether the caller may remove content by `authorId` in the page `pageOf` finds (read only if needed): its author
 * while their role grants `statuses.destroy` (taking back what one posted, as posting needs `statuses.create`), and
 * its moderators by the moderation rule whatever their role grants.
 */
export async function mayRemoveIn(store: Store, caller: Caller, authorId: string, pageOf: () => Promise<string | null>): Promise<boolean> {
  if (caller.user.id === authorId && can(caller, 'statuses', 'destroy')) return true;
  return caller.isAdmin || (await moderatesPage(store, caller, await pageOf()));
}

/** `mayRemoveIn` the status's place: its page, or its event's. */
export const mayRemove = (store: Store, caller: Caller, authorId: string, status: StatusRow): Promise<boolean> =>
  mayRemoveIn(store, caller, authorId, () => pageOfStatus(store, status));

/**
 * 403 unless the caller may remove the content: the page's administrator may remove what is in an event's
 * conversation in their page without having answered it (which they may not read); its author is told which
 * permission they lack; anyone else who may not read it is told so, as a read would tell them.
 */
async function requireMayRemove(tx: Store, caller: Caller, authorId: string, status: StatusRow, readable: boolean, noun: 'status' | 'comment'): Promise<void> {
  if (await mayRemove(tx, caller, authorId, status)) return;
  if (caller.user.id === authorId) requirePermission(caller, 'statuses', 'destroy');
  if (!readable) throw closed(status);
  throw forbidden(`Only the author, the page's administrators and project administrators may remove this ${noun}`);
}

/** A comment for whoever may read its status; a removed one for Admins only. */
export async function getComment(deps: Deps, caller: Caller, id: string): Promise<Comment> {
  requirePermission(caller, 'statuses', 'show');
  const comment = await deps.store.comments.getById(id);
  if (!comment) {
    const removed = caller.isAdmin ? await deps.store.removals.getRemoved('Comment', id) : undefined;
    if (!removed) throw notFound('Comment');
    const row: CommentRow = { ...removed, status_id: removed.status_id! };
    const [record] = await toCommentRecords(deps.store, caller, [row], deps.clock());
    return { ...record!, ...removedFields(removed) };
  }
  const readable = await readableComment(deps.store, viewerOf(caller), id, nowIso(deps));
  return (await toCommentRecords(deps.store, caller, [readable.comment], deps.clock()))[0]!;
}

/** Removed content, newest removal first: Admins only, as removed content is theirs alone to read. */
export async function listRemovedContent(deps: Deps, caller: Caller, query: ListRemovedContentQuery): Promise<ListResult<RemovedContent>> {
  requireAdmin(caller, 'read removed content');
  const { target_type, user_id, removed_by } = query;
  const listed = await deps.store.removals.listRemoved({ target_type, user_id, removed_by }, query);
  return listResult(
    listed.rows.map((r) => ({
      id: r.id,
      target_type: r.target_type,
      user_id: r.user_id,
      status_id: r.status_id,
      page_id: r.page_id,
      event_id: r.event_id,
      content: r.content,
      created_at: r.created_at,
      ...removedFields(r),
    })),
    listed,
  );
}

/** What follows a removal by someone other than the author: the removal audited, and the author told. */
async function removedByAnother(
  tx: Store,
  now: string,
  caller: Caller,
  status: StatusRow,
  target: { type: 'Status' | 'Comment'; id: string; content: string; authorId: string },
  reason: string | null,
) {
  if (target.authorId === caller.user.id) return;
  // Audited, then told: the order of every audited act that notifies (domain/README.md, "Moderation takes turns").
  const noun = target.type === 'Status' ? 'status' : 'comment';
  // Whose it was: the entry is read long after, when the content itself is no longer shown to most.
  const author = await tx.users.getById(target.authorId);
  await recordAudit(tx, now, caller, {
    action: target.type === 'Status' ? 'status.remove' : 'comment.remove',
    target_id: target.id,
    summary: `removed ${author ? `${author.nickname}'s` : 'a'} ${noun} "${excerpt(target.content)}"${reason ? ` (${reason})` : ''}`,
  });
  const place = await placeOf(tx, status);
  await notifyUsers(
    tx,
    now,
    {
      type: 'content_removed',
      action: 'removed',
      subject: userRef(caller.user),
      target: { type: target.type, id: target.id, name: excerpt(target.content) },
      finalTarget: place,
      link: place,
      ...(target.type === 'Comment' ? { comment: { id: target.id, content: target.content } } : {}),
    },
    [target.authorId],
    [caller.user.id],
  );
}

/** The status, once the caller may remove it (an Admin is told when it is removed already). */
async function removableStatus(store: Store, caller: Caller, id: string, now: string): Promise<StatusRow> {
  const { status, readable } = await knownStatus(store, viewerOf(caller), id, now).catch((error: unknown) => alreadyRemoved(store, caller, 'Status', id, error));
  await requireMayRemove(store, caller, status.user_id, status, readable, 'status');
  return status;
}

export async function removeStatus(deps: Deps, caller: Caller, id: string, reason: string | null): Promise<void> {
  await inTurn(
    deps,
    (store, now) => removableStatus(store, caller, id, now),
    (tx, status, now) => removeStatusIn(tx, now, caller, status, reason),
    // Held before it is read again (domain/README.md, "Content held"): a second removal then reads it removed.
    (tx) => holdContent(tx, 'Status', id, 'remove'),
  );
}

/**
 * A removal of content that is gone: for Admins, who still read removed content, a 409 saying it was removed and
 * when (a 404 would contradict the `GET` they just made); for anyone else the read's own answer, as it is hidden.
 */
export async function alreadyRemoved(tx: Store, caller: Caller, type: 'Status' | 'Comment', id: string, error: unknown): Promise<never> {
  const removed = await removedForAdmin(tx, caller, type, id, error);
  if (removed) throw conflict(ErrorCode.conflict, `This ${type === 'Status' ? 'status' : 'comment'} was already removed (${removed.removed_at})`);
  throw error;
}

/**
 * The removal of a status the caller may remove, in the caller's transaction (a report's `remove` too, with
 * `alsoTold` the reporters it tells after: their counters are taken with the rest).
 */
export async function removeStatusIn(tx: Store, now: string, caller: Caller, status: StatusRow, reason: string | null, alsoTold: string[] = []): Promise<void> {
  const commentIds = await tx.removals.removeStatus(status, { removed_at: now, removed_by: caller.user.id, removal_reason: reason });
  const removed = [{ type: 'Status' as const, id: status.id }, ...commentIds.map((id) => ({ type: 'Comment' as const, id }))];
  // The reports settled first: the settling takes the counters of all it may tell, the author's too (told by
  // `removedByAnother` unless they removed it), in id order.
  await settleReportsIn(tx, now, caller, removed, 'remove', { alsoTold: [...alsoTold, status.user_id] });
  await removedByAnother(tx, now, caller, status, { type: 'Status', id: status.id, content: status.content, authorId: status.user_id }, reason);
  // After the settling, whose audit entry still quotes it (the audit log is Admins', who read removed content).
  await tx.reports.unquote(removed);
}

/** The comment and its status, once the caller may remove it (an Admin is told when it is removed already). */
async function removableComment(store: Store, caller: Caller, id: string, now: string): Promise<{ comment: CommentRow; status: StatusRow }> {
  const { comment, status, readable } = await knownComment(store, viewerOf(caller), id, now).catch((error: unknown) =>
    alreadyRemoved(store, caller, 'Comment', id, error),
  );
  await requireMayRemove(store, caller, comment.user_id, status, readable, 'comment');
  return { comment, status };
}

export async function removeComment(deps: Deps, caller: Caller, id: string, reason: string | null): Promise<void> {
  await inTurn(
    deps,
    (store, now) => removableComment(store, caller, id, now),
    (tx, { comment, status }, now) => removeCommentIn(tx, now, caller, comment, status, reason),
    (tx) => holdContent(tx, 'Comment', id, 'remove'),
  );
}

/** The removal of a comment the caller may remove, in the caller's transaction. */
export async function removeCommentIn(
  tx: Store,
  now: string,
  caller: Caller,
  comment: CommentRow,
  status: StatusRow,
  reason: string | null,
  alsoTold: string[] = [],
): Promise<void> {
  await tx.removals.removeComment(comment, status, { removed_at: now, removed_by: caller.user.id, removal_reason: reason });
  await settleReportsIn(tx, now, caller, [{ type: 'Comment', id: comment.id }], 'remove', { alsoTold: [...alsoTold, comment.user_id] });
  await removedByAnother(tx, now, caller, status, { type: 'Comment', id: comment.id, content: comment.content, authorId: comment.user_id }, reason);
  await tx.reports.unquote([{ type: 'Comment', id: comment.id }]);
}

/**
 * An unlike: only the user who liked, while their role grants `statuses.destroy` (as for their statuses), and
 * Admins for anyone. Another's like is 403 where the caller reads what was liked, and 404 where they do not: a like
 * is as hidden as its status or comment.
 */
export async function deleteLike(deps: Deps, caller: Caller, id: string): Promise<void> {
  await deps.store.transaction(async (tx) => {
    const like = await tx.likes.getById(id);
    if (!like) throw notFound('Like');
    if (!caller.isAdmin) {
      if (like.user_id !== caller.user.id) {
        await requireLikeReadable(tx, caller, like, nowIso(deps));
        throw forbidden('Only the user who liked (or an Admin) may take the like back');
      }
      requirePermission(caller, 'statuses', 'destroy');
    }
    // Held as a removal holds it (domain/README.md, "Content held"), before the like's row: a removal, which holds
    // the status (or comment) and then deletes its likes, would otherwise wait for this like while this waited for
    // the row whose count it moves, a deadlock PostgreSQL breaks only after a second.
    if (!(await holdContent(tx, like.target_type === 'Comment' ? 'Comment' : 'Status', like.target_id, 'write'))) throw notFound('Like');
    if (!(await tx.removals.unlike(like))) throw notFound('Like');
    // An Admin taking back another's like is a moderator's act: audited, naming whose it was.
    if (like.user_id !== caller.user.id) {
      const liker = await tx.users.getById(like.user_id);
      await recordAudit(tx, nowIso(deps), caller, {
        action: 'like.remove',
        target_id: like.id,
        summary: `took back ${liker ? `${liker.nickname}'s` : 'a'} like of the ${like.target_type === 'Comment' ? 'comment' : 'status'} ${like.target_id}`,
      });
    }
  });
}
