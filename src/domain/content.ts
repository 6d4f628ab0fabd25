import { AppError, ErrorCode, forbidden, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { listResult, MAX_PER_PAGE, type ListResult, type Pagination } from '../shared/schemas/common.js';
import type {
  Comment,
  CreateCommentInput,
  CreateLikeInput,
  CreateStatusInput,
  Like,
  ListLikesQuery,
  ListStatusesQuery,
  Status,
} from '../shared/schemas/content.js';
import { STREAM_PAGE_WINDOW, type CommentRow, type LikeRow, type StatusListed, type StatusRow } from '../store/content.js';
import { isUniqueViolation } from '../store/errors.js';
import type { Audience } from '../store/notifications.js';
import type { Store } from '../store/store.js';
import {
  closedPageOf,
  eventKnownTo,
  holdContent,
  pageKnownTo,
  postingUser,
  readableComment,
  readableStatus,
  readsStatus,
  requireConversation,
  removedForAdmin,
  requirePostInPage,
} from './content-access.js';
import { nowIso, viewerOf, type Caller, type Deps } from './context.js';
import { enqueueFanOut, eventRef, excerpt, notifyUsers, pageRef, userRef, type Ref } from './notifications.js';
import { requireActingFor, requirePermission } from './permissions.js';
import type { RemovedRow } from '../store/removals.js';
import type { WithUser } from '../store/users.js';
import { loadEmbeds } from './records.js';

/**
 * Statuses as the caller reads them at `now`: the comments hidden from the caller (by suspended authors) are not
 * in a status's `comments_count`, as they are not in its comment list.
 */
async function toStatusRecords(store: Store, caller: Caller, rows: StatusListed[], now: string): Promise<Status[]> {
  // A list's rows carry their authors and hidden comments' counts; a status read alone reads them here.
  const uncounted = rows.filter((r) => r.comments_count > 0 && r.hidden_comments === undefined).map((r) => r.id);
  const [authors, unseen] = await Promise.all([
    loadEmbeds(store, caller, rows.map((r) => r.user_id), [], new Date(now), { users: rows.map((r) => r.user) }),
    store.comments.countHidden(uncounted, viewerOf(caller), now),
  ]);
  return rows.map((r) => ({
    id: r.id,
    user_id: r.user_id,
    user: authors.user(r.user_id),
    content: r.content,
    page_id: r.page_id,
    event_id: r.event_id,
    comments_count: r.comments_count - Number(r.hidden_comments ?? unseen.get(r.id) ?? 0),
    likes_count: r.likes_count,
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

export async function toCommentRecords(store: Store, caller: Caller, rows: WithUser<CommentRow>[], now: Date): Promise<Comment[]> {
  const authors = await loadEmbeds(store, caller, rows.map((r) => r.user_id), [], now, { users: rows.map((r) => r.user) });
  return rows.map((r) => ({
    id: r.id,
    status_id: r.status_id,
    user_id: r.user_id,
    user: authors.user(r.user_id),
    content: r.content,
    likes_count: r.likes_count,
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

/** Where a status was posted: its page, its event, or its author's profile. */
export async function placeOf(store: Store, status: StatusRow): Promise<Ref & { name: string }> {
  if (status.page_id) {
    const page = await store.pages.getById(status.page_id);
    if (page) return pageRef(page);
  }
  if (status.event_id) {
    const event = await store.events.getById(status.event_id);
    if (event) return eventRef(event);
  }
  const author = await store.users.getById(status.user_id);
  if (!author) throw new Error(`author ${status.user_id} is missing`);
  return userRef(author);
}

/**
 * Posts a status: on the author's profile, in a page they are in, or in an event's conversation. Its
 * notifications go to the page's members (and, in a public page, the author's followers), to the event's
 * attendees and creator (in a private or secret page, those of them still in it), or to the author's followers: a
 * fan-out recorded with the status and carried out after the commit.
 */
export async function createStatus(deps: Deps, caller: Caller, input: CreateStatusInput): Promise<Status> {
  requireActingFor(caller, input.user_id);
  const row = await deps.store.transaction(async (tx) => {
    const { user: author, viewer } = await postingUser(tx, caller, input.user_id);
    const now = nowIso(deps);
    const status: StatusRow = {
      id: newId(),
      user_id: author.id,
      content: input.content,
      page_id: null,
      event_id: null,
      comments_count: 0,
      likes_count: 0,
      created_at: now,
      updated_at: now,
    };
    let place: Ref & { name: string } = userRef(author);
    let audiences: Audience[] = [{ kind: 'followers', followable_type: 'User', followable_id: author.id }];
    if (input.page_id) {
      const page = await pageKnownTo(tx, viewer, input.page_id);
      await requirePostInPage(tx, viewer, page);
      status.page_id = page.id;
      place = pageRef(page);
      audiences = [{ kind: 'followers', followable_type: 'Page', followable_id: page.id }];
      if (page.privacy === 'public')
        audiences.push({ kind: 'followers', followable_type: 'User', followable_id: author.id, except_followers_of_page: page.id });
    } else if (input.event_id) {
      const event = await eventKnownTo(tx, viewer, input.event_id);
      await requireConversation(tx, viewer, event);
      status.event_id = event.id;
      place = eventRef(event);
      // In a private or secret page, only those who read the conversation when the fan-out runs: its creator too.
      const in_page = (await closedPageOf(tx, event))?.id;
      audiences = [
        { kind: 'attendees', event_id: event.id, answers: ['yes'], in_page },
        { kind: 'users', user_ids: [event.user_id], in_page },
      ];
    }
    await enqueueFanOut(
      tx,
      now,
      {
        type: 'status',
        action: 'posted',
        subject: userRef(author),
        target: { type: 'Status', id: status.id, name: excerpt(status.content) },
        finalTarget: place,
        link: { type: 'Status', id: status.id },
      },
      audiences,
      [author.id, caller.user.id],
    );
    // Last (domain/README.md, "Follows and statuses last").
    await tx.statuses.insert(status);
    return { ...status, user: author };
  });
  deps.notifications?.wake();
  // A new status has no comments yet.
  return (await toStatusRecords(deps.store, caller, [row], nowIso(deps)))[0]!;
}

export async function getStatus(deps: Deps, caller: Caller, id: string): Promise<Status> {
  requirePermission(caller, 'statuses', 'show');
  const removed = await removedStatus(deps, caller, id);
  if (removed) return removed;
  const row = await readableStatus(deps.store, viewerOf(caller), id, nowIso(deps));
  return (await toStatusRecords(deps.store, caller, [row], nowIso(deps)))[0]!;
}

/** Comments on a status, oldest first, for those who may read the status. */
export async function listComments(deps: Deps, caller: Caller, statusId: string, page: Pagination): Promise<ListResult<Comment>> {
  requirePermission(caller, 'statuses', 'index');
  await readableStatus(deps.store, viewerOf(caller), statusId, nowIso(deps)).catch(async (error: unknown) => {
    const removed = await removedForAdmin(deps.store, caller, 'Status', statusId, error);
    if (removed)
      throw new AppError(404, ErrorCode.notFound, `Status not found: it was removed (${removed.removed_at}), its comments with it (GET /removed_content lists them)`);
    throw error;
  });
  const listed = await deps.store.comments.listForStatus(statusId, viewerOf(caller), nowIso(deps), page);
  return listResult(await toCommentRecords(deps.store, caller, listed.rows, deps.clock()), listed);
}

/** Comments on a status the author may read; its author is notified while they read it (`readsStatus`). */
export async function createComment(deps: Deps, caller: Caller, input: CreateCommentInput): Promise<Comment> {
  requireActingFor(caller, input.user_id);
  const row = await deps.store.transaction(async (tx) => {
    const { user: author, viewer } = await postingUser(tx, caller, input.user_id);
    const status = await readableStatus(tx, viewer, input.status_id, nowIso(deps));
    // Held (domain/README.md, "Content held"): a removal under way goes first, and this finds the status gone.
    if (!(await tx.statuses.hold(status.id, 'write'))) throw notFound('Status');
    const now = nowIso(deps);
    const comment: CommentRow = {
      id: newId(),
      status_id: status.id,
      user_id: author.id,
      content: input.content,
      likes_count: 0,
      created_at: now,
      updated_at: now,
    };
    await tx.comments.insert(comment);
    await tx.statuses.addToCount(status.id, 'comments_count', 1);
    await notifyUsers(
      tx,
      now,
      {
        type: 'comment',
        action: 'commented',
        subject: userRef(author),
        target: { type: 'Comment', id: comment.id, name: excerpt(comment.content) },
        finalTarget: await placeOf(tx, status),
        link: { type: 'Status', id: status.id },
        comment: { id: comment.id, content: comment.content },
      },
      await toldAuthor(tx, status.user_id, status, now, [author.id, caller.user.id]),
      [author.id, caller.user.id],
    );
    return { ...comment, user: author };
  });
  return (await toCommentRecords(deps.store, caller, [row], deps.clock()))[0]!;
}

/**
 * Who is told of a comment or a like: the author of what it is on, unless they made it, and only while they read it
 * (`readsStatus`: one who left the closed page it is in is not told what is said there).
 */
async function toldAuthor(tx: Store, authorId: string, status: StatusRow, now: string, actors: string[]): Promise<string[]> {
  return !actors.includes(authorId) && (await readsStatus(tx, authorId, status, now)) ? [authorId] : [];
}

/** Likes a status or a comment, once per user (409 `already_liked` after that); its author is told while they read it. */
export async function createLike(deps: Deps, caller: Caller, input: CreateLikeInput): Promise<Like> {
  requireActingFor(caller, input.user_id);
  const row = await deps.store.transaction(async (tx) => {
    const { user: liker, viewer } = await postingUser(tx, caller, input.user_id);
    let comment: CommentRow | undefined;
    let status: StatusRow;
    if (input.comment_id) {
      ({ comment, status } = await readableComment(tx, viewer, input.comment_id, nowIso(deps)));
      // Held (domain/README.md, "Content held"), the status first: a removal of either takes the like along or goes first.
      if (!(await holdContent(tx, 'Comment', comment.id, 'write', status.id))) throw notFound('Comment');
    } else {
      status = await readableStatus(tx, viewer, input.status_id!, nowIso(deps));
      if (!(await tx.statuses.hold(status.id, 'write'))) throw notFound('Status');
    }
    const now = nowIso(deps);
    const like: LikeRow = {
      id: newId(),
      user_id: liker.id,
      target_type: comment ? 'Comment' : 'Status',
      target_id: comment ? comment.id : status.id,
      created_at: now,
    };
    try {
      await tx.likes.insert(like);
    } catch (error) {
      if (isUniqueViolation(error, 'likes'))
        throw new AppError(409, ErrorCode.alreadyLiked, `This user already likes this ${comment ? 'comment' : 'status'}`);
      throw error;
    }
    if (comment) await tx.comments.addToLikes(comment.id, 1);
    else await tx.statuses.addToCount(status.id, 'likes_count', 1);
    await notifyUsers(
      tx,
      now,
      {
        type: 'like',
        action: 'liked',
        subject: userRef(liker),
        target: comment
          ? { type: 'Comment', id: comment.id, name: excerpt(comment.content) }
          : { type: 'Status', id: status.id, name: excerpt(status.content) },
        finalTarget: await placeOf(tx, status),
        link: { type: 'Status', id: status.id },
        ...(comment ? { comment: { id: comment.id, content: comment.content } } : {}),
      },
      await toldAuthor(tx, comment ? comment.user_id : status.user_id, status, now, [liker.id, caller.user.id]),
      [liker.id, caller.user.id],
    );
    return { ...like, user: liker };
  });
  return (await toLikeRecords(deps.store, caller, [row], deps.clock()))[0]!;
}

async function toLikeRecords(store: Store, caller: Caller, rows: WithUser<LikeRow>[], now: Date): Promise<Like[]> {
  const likers = await loadEmbeds(store, caller, rows.map((r) => r.user_id), [], now, { users: rows.map((r) => r.user) });
  return rows.map((r) => ({
    id: r.id,
    user_id: r.user_id,
    user: likers.user(r.user_id),
    status_id: r.target_type === 'Status' ? r.target_id : null,
    comment_id: r.target_type === 'Comment' ? r.target_id : null,
    created_at: r.created_at,
  }));
}

type LikeTarget = { type: 'Status' | 'Comment'; id: string };
const readableTarget = (store: Store, caller: Caller, target: LikeTarget, now: string) =>
  target.type === 'Comment' ? readableComment(store, viewerOf(caller), target.id, now) : readableStatus(store, viewerOf(caller), target.id, now);

/** A like is as hidden as what was liked: 404 `Like` to whoever may not read its status or comment. */
export async function requireLikeReadable(store: Store, caller: Caller, like: LikeRow, now: string): Promise<void> {
  await readableTarget(store, caller, { type: like.target_type as LikeTarget['type'], id: like.target_id }, now).catch((error: unknown) => {
    throw error instanceof AppError && (error.status === 403 || error.status === 404) ? notFound('Like') : error;
  });
}

/**
 * The likes of a status or a comment the caller reads, oldest first (one user's with `user_id`). The caller's own like
 * (`user_id` their own) is listed whatever became of what they liked, as `getLike` reads it: the way to find it to take
 * it back. One who has none there is refused as the read refuses them.
 */
export async function listLikes(deps: Deps, caller: Caller, target: LikeTarget, query: ListLikesQuery): Promise<ListResult<Like>> {
  requirePermission(caller, 'statuses', 'index');
  const own = query.user_id === caller.user.id;
  const refused = await readableTarget(deps.store, caller, target, nowIso(deps)).then(
    () => undefined,
    (error: unknown) => {
      if (own && error instanceof AppError && (error.status === 403 || error.status === 404)) return error;
      throw error;
    },
  );
  const listed = await deps.store.likes.list(target, query.user_id, query);
  if (refused && listed.rows.length === 0) throw refused;
  return listResult(await toLikeRecords(deps.store, caller, listed.rows, deps.clock()), listed);
}

/**
 * A like, read by whoever reads what was liked (a like is as hidden as its status or comment), and by the user who
 * liked, who may take it back (`DELETE /likes/{id}`) whether or not they still read what they liked.
 */
export async function getLike(deps: Deps, caller: Caller, id: string): Promise<Like> {
  requirePermission(caller, 'statuses', 'show');
  const like = await deps.store.likes.getById(id);
  if (!like) throw notFound('Like');
  if (like.user_id !== caller.user.id) await requireLikeReadable(deps.store, caller, like, nowIso(deps));
  return (await toLikeRecords(deps.store, caller, [like], deps.clock()))[0]!;
}

/** Statuses newest first, each visible to the caller as in the stream. */
export async function listStatuses(deps: Deps, caller: Caller, query: ListStatusesQuery): Promise<ListResult<Status>> {
  requirePermission(caller, 'statuses', 'index');
  const { user_id, page_id, event_id } = query;
  const listed = await deps.store.statuses.list(viewerOf(caller), nowIso(deps), { user_id, page_id, event_id }, query);
  return listResult(await toStatusRecords(deps.store, caller, listed.rows, nowIso(deps)), listed);
}

/** The statuses of what the user follows, newest first: for the user themself and project administrators. */
export async function getStream(deps: Deps, caller: Caller, userId: string, page: Pagination): Promise<ListResult<Status>> {
  requirePermission(caller, 'statuses', 'index');
  if (caller.user.id !== userId && !caller.isAdmin) throw forbidden('You may read only your own stream');
  if (!(await deps.store.users.getById(userId))) throw notFound('User');
  const listed = await deps.store.statuses.stream(userId, viewerOf(caller), nowIso(deps), page);
  if (!listed) {
    const beyond = `page: a stream of more than ${MAX_PER_PAGE} sources is paged by number through its first ${STREAM_PAGE_WINDOW}`;
    throw new AppError(400, ErrorCode.invalidQuery, `${beyond} statuses; follow the Link header's cursor beyond`);
  }
  return listResult(await toStatusRecords(deps.store, caller, listed.rows, nowIso(deps)), listed);
}

/** What Admins read of removed content beside its record. */
export const removedFields = (row: RemovedRow) => ({ removed_at: row.removed_at, removed_by: row.removed_by, removal_reason: row.removal_reason });

/** A removed status as Admins read it; undefined for anyone else or when it was never removed. */
async function removedStatus(deps: Deps, caller: Caller, id: string): Promise<Status | undefined> {
  if (!caller.isAdmin) return undefined;
  const row = await deps.store.removals.getRemoved('Status', id);
  if (!row) return undefined;
  // Admins only: nothing is hidden from them.
  const [record] = await toStatusRecords(deps.store, caller, [row], nowIso(deps));
  return { ...record!, ...removedFields(row) };
}
