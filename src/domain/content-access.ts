import { AppError, forbidden, notFound } from '../shared/errors.js';
import type { Permissions } from '../shared/schemas/permissions.js';
import { SYSTEM_ROLES } from '../store/default-roles.js';
import type { EventRow } from '../store/events.js';
import type { PageRow } from '../store/pages.js';
import type { CommentRow, StatusRow } from '../store/content.js';
import type { RemovedRow } from '../store/removals.js';
import type { Hold } from '../store/rows.js';
import type { Store } from '../store/store.js';
import type { UserWithRole } from '../store/users.js';
import type { Viewer } from '../store/visibility.js';
import { viewerOf, type Caller } from './context.js';
import { findVisiblePage, isMember } from './pages.js';
import { parsePermissions, requirePermission } from './permissions.js';

/**
 * Who may read and post content. Reading needs the role's `statuses.show` for one status, comment or like and its
 * `statuses.index` for a list of them or a stream (as reading users needs `users.show` and `users.index`), checked
 * where each read begins; then it follows the one rule of `store/visibility.ts` (the store answers it);
 * posting is for a page's members and an event's conversation, by a user whose role grants `statuses.create`
 * (`postingUser`). Project administrators may read and post anywhere.
 */

/**
 * The user a body names as acting, the same user as a viewer of content, and what their role grants: the caller as
 * authenticated (no read: as fresh as every caller, see Authenticator), or the user an Admin acts for, read with
 * their role in one statement (404 when there is none).
 */
export async function actingUser(store: Store, caller: Caller, userId: string): Promise<{ user: UserWithRole; viewer: Viewer; permissions: Permissions }> {
  if (userId === caller.user.id) return { user: caller.user, viewer: viewerOf(caller), permissions: caller.permissions };
  const row = await store.users.getWithPermissions(userId);
  if (!row) throw notFound('User');
  const { role_permissions, ...user } = row;
  return { user, viewer: asViewer(user), permissions: parsePermissions(role_permissions) };
}

/** A user as a viewer of content: who they are, and whether their role is the Admins'. */
const asViewer = (user: UserWithRole): Viewer => ({ id: user.id, isAdmin: user.role_system_key === SYSTEM_ROLES.admins });

/** The user `userId` as a viewer of content, read by id (undefined when there is none): to ask what they may read. */
export async function viewerById(store: Store, userId: string): Promise<Viewer | undefined> {
  const user = await store.users.getById(userId);
  return user && asViewer(user);
}

/**
 * The user a status, a comment or a like is posted as (a like is a small post), once their role grants
 * `statuses.create`: the author's role is what a moderator restricts, so an Admin posting for someone is refused
 * what that user is refused, as they are refused the pages that user is not in.
 */
export async function postingUser(store: Store, caller: Caller, userId: string): ReturnType<typeof actingUser> {
  const acting = await actingUser(store, caller, userId);
  requirePermission(acting, 'statuses', 'create', acting.user.id === caller.user.id ? undefined : `The role of ${acting.user.nickname}`);
  return acting;
}

/** A page the viewer may know of: 404 for a secret page they are not in (the one rule, `findVisiblePage`). */
export const pageKnownTo = (store: Store, viewer: Viewer, pageId: string): Promise<PageRow> =>
  findVisiblePage(store, viewer, pageId);

/** In a page: its members, and its administrators (its creator, the Admins). */
const inPage = async (store: Store, viewer: Viewer, page: PageRow): Promise<boolean> =>
  viewer.isAdmin || page.user_id === viewer.id || (await isMember(store, viewer.id, page.id));

/** Posting in a page: its members (and its administrators). */
export async function requirePostInPage(store: Store, viewer: Viewer, page: PageRow): Promise<void> {
  if (!(await inPage(store, viewer, page))) throw forbidden('Only members of the page may post in it: follow it (or ask to join) first');
}

/**
 * The private or secret page the event is in, if any: its events are for its members to answer and talk over (an
 * answer opens the conversation), and its conversation's statuses are told to those of them who answered yes.
 */
export async function closedPageOf(store: Store, event: EventRow): Promise<PageRow | undefined> {
  const page = event.page_id === null ? undefined : await store.pages.getById(event.page_id);
  return page?.privacy === 'public' ? undefined : page;
}

/** That page, when the viewer is not in it. */
export async function eventPageClosedTo(store: Store, viewer: Viewer, event: EventRow): Promise<PageRow | undefined> {
  const page = await closedPageOf(store, event);
  return page && !(await inPage(store, viewer, page)) ? page : undefined;
}

/** An event the viewer may know of: an event in a secret page is as hidden as the page. */
export async function eventKnownTo(store: Store, viewer: Viewer, eventId: string): Promise<EventRow> {
  const event = await store.events.getKnown(eventId, viewer);
  if (!event) throw notFound('Event');
  return event;
}

/**
 * Posting in an event's conversation: who may read it (`statusOpenTo`), its creator and those who answered yes or
 * maybe, in a private or secret page those of them still in it.
 */
export async function requireConversation(store: Store, viewer: Viewer, event: EventRow): Promise<void> {
  if (viewer.isAdmin) return;
  const answer = event.user_id === viewer.id ? 'yes' : (await store.attendances.find(event.id, viewer.id))?.answer;
  if ((answer !== 'yes' && answer !== 'maybe') || (await eventPageClosedTo(store, viewer, event))) throw forbidden(CONVERSATION_CLOSED);
}

const CONVERSATION_CLOSED =
  "This event's conversation is open to its creator and to those who answered yes or maybe (in a private page, while they are in it)";

/** 403 for a status the viewer knows of but may not read (`statusOpenTo`): a private page's, or an event's. */
export const closed = (status: StatusRow) => forbidden(status.page_id ? 'This page is private: its content is for its members' : CONVERSATION_CLOSED);

/**
 * A status the viewer may read, or 404 (hidden) / 403 (known but not theirs to read): the store answers both
 * from the one rule in `store/visibility.ts`, in one statement.
 */
export async function readableStatus(store: Store, viewer: Viewer, statusId: string, now: string): Promise<StatusRow> {
  const { status, readable } = await knownStatus(store, viewer, statusId, now);
  if (!readable) throw closed(status);
  return status;
}

/** A status the viewer knows of (else 404), and whether they may read it: `readableStatus` without its 403. */
export async function knownStatus(store: Store, viewer: Viewer, statusId: string, now: string): Promise<{ status: StatusRow; readable: boolean }> {
  const found = await store.statuses.getKnown(statusId, viewer, now);
  if (!found) throw notFound('Status');
  const { readable, ...status } = found;
  return { status, readable: Boolean(readable) };
}

/** A comment the viewer may read (as its status), with its status; 404 / 403 as `readableStatus`. */
export async function readableComment(store: Store, viewer: Viewer, commentId: string, now: string): Promise<{ comment: CommentRow; status: StatusRow }> {
  const { comment, status, readable } = await knownComment(store, viewer, commentId, now);
  if (!readable) throw closed(status);
  return { comment, status };
}

/** A comment the viewer knows of (as its status; else 404), with its status, and whether they may read it. */
export async function knownComment(
  store: Store,
  viewer: Viewer,
  commentId: string,
  now: string,
): Promise<{ comment: CommentRow; status: StatusRow; readable: boolean }> {
  const found = await store.comments.getKnown(commentId, viewer, now);
  const status = found && (await store.statuses.getById(found.status_id));
  if (!found || !status) throw notFound('Comment');
  const { readable, ...comment } = found;
  return { comment, status, readable: Boolean(readable) };
}

/**
 * What a read refused as unknown (404) was, when it was content removed and the caller is an Admin, who still reads
 * removed content: the refusal then says so (a bare 404 would contradict the `GET` they just made). Else undefined.
 */
export async function removedForAdmin(store: Store, caller: Caller, type: 'Status' | 'Comment', id: string, error: unknown): Promise<RemovedRow | undefined> {
  return caller.isAdmin && error instanceof AppError && error.status === 404 ? await store.removals.getRemoved(type, id) : undefined;
}

/**
 * Holds a status, or a comment after its status (domain/README.md, "Content held"), before it is removed (`remove`),
 * written to (`write`: a comment or a like, its count moving) or referred to (`share`). A comment's status is held to
 * write when the comment is removed (its comment count moves), else to share. False when either is gone. `statusId`:
 * the comment's status, when it was read already.
 */
export async function holdContent(store: Store, type: 'Status' | 'Comment', id: string, how: Hold, statusId?: string): Promise<boolean> {
  if (type === 'Status') return store.statuses.hold(id, how);
  const status = statusId ?? (await store.comments.getById(id))?.status_id;
  return status !== undefined && (await store.statuses.hold(status, how === 'remove' ? 'write' : 'share')) && (await store.comments.hold(id, how));
}

/**
 * Whether a user reads the status, as `readableStatus` would answer them: who is told of a comment or a like on it.
 * One who left the closed page (or event conversation) a status is in reads it no longer, and is not told what is
 * said there; a status in no page and no event is open to everyone it can be about.
 */
export async function readsStatus(store: Store, userId: string, status: StatusRow, now: string): Promise<boolean> {
  if (status.page_id === null && status.event_id === null) return true;
  const viewer = await viewerById(store, userId);
  return Boolean(viewer && (await store.statuses.getKnown(status.id, viewer, now))?.readable);
}
