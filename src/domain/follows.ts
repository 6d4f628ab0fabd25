import { requireNotSuspendedUser } from './suspensions.js';
import { AppError, ErrorCode, forbidden, invalidField, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { listResult, type ListResult } from '../shared/schemas/common.js';
import type { CreateFollowInput, Follow, FollowableType, ListFollowsQuery } from '../shared/schemas/follows.js';
import type { FollowRow } from '../store/follows.js';
import type { PageRow } from '../store/pages.js';
import { nowIso, viewerOf, type Caller, type Deps } from './context.js';
import { administersPage, findVisiblePage } from './pages.js';
import { requireActingFor } from './permissions.js';
import { notifyUsers, pageRef, userRef, type Ref } from './notifications.js';
import { loadEmbeds } from './records.js';
import { actingUser } from './content-access.js';

const toFollowRecord = (row: FollowRow, followable?: Follow['followable']): Follow => ({
  id: row.id,
  user_id: row.user_id,
  followable_type: row.followable_type as FollowableType,
  followable_id: row.followable_id,
  ...(followable !== undefined ? { followable } : {}),
  created_at: row.created_at,
});

/**
 * Follows a user or a page. Public pages are open to all; a private page needs an accepted access request
 * or invite (403 `access_request_required`); a secret page is 404 to those outside it.
 */
export async function createFollow(deps: Deps, caller: Caller, input: CreateFollowInput): Promise<Follow> {
  requireActingFor(caller, input.user_id);
  const row = await deps.store.transaction(async (tx) => {
    // The caller was read as the request was authenticated (users are never deleted); another user, acted for by
    // an Admin, is read here.
    const { user: follower } = await actingUser(tx, caller, input.user_id);
    // A suspended user follows nothing new (an Admin acting for them would let them into a private page).
    await requireNotSuspendedUser(tx, nowIso(deps), follower);
    // Who is told of the new follower: the user followed, or the page's creator.
    let followed: { recipient: string; ref: Ref & { name: string } };
    if (input.followable_type === 'User') {
      if (input.followable_id === input.user_id) throw invalidField('followable_id', 'a user cannot follow themself');
      const user = await tx.users.getById(input.followable_id);
      if (!user) throw notFound('User');
      await requireNotSuspendedUser(tx, nowIso(deps), user);
      followed = { recipient: user.id, ref: userRef(user) };
    } else {
      const page = await findVisiblePage(tx, caller, input.followable_id);
      followed = { recipient: page.user_id, ref: pageRef(page) };
      admitOrRefuse(caller, input.user_id, page);
    }
    const follow: FollowRow = {
      id: newId(),
      user_id: input.user_id,
      followable_type: input.followable_type,
      followable_id: input.followable_id,
      created_at: nowIso(deps),
    };
    await notifyUsers(
      tx,
      follow.created_at,
      {
        type: 'follow',
        action: 'followed',
        subject: userRef(follower),
        target: followed.ref,
        finalTarget: followed.ref,
        link: { type: 'User', id: follower.id, slug: follower.slug },
      },
      [followed.recipient],
      [follower.id, caller.user.id],
    );
    // Last (domain/README.md, "Follows and statuses last"). An existing follow is told by the insert that does
    // nothing (no failed statement to undo, no driver error); the notification before it is undone with the rest.
    if (!(await tx.follows.insertIfAbsent(follow)))
      throw new AppError(409, ErrorCode.alreadyFollowing, `This user already follows this ${input.followable_type.toLowerCase()}`);
    return follow;
  });
  return toFollowRecord(row);
}

/** A public page is open to all; a private or secret one to its creator and its administrators only (403). */
function admitOrRefuse(caller: Caller, userId: string, page: PageRow): void {
  const admitted = page.privacy === 'public' || page.user_id === userId || administersPage(caller, page);
  if (!admitted)
    throw forbidden(`This page is ${page.privacy}: join it through an access request or an invite`, ErrorCode.accessRequestRequired);
}

export async function listFollows(deps: Deps, caller: Caller, query: ListFollowsQuery): Promise<ListResult<Follow>> {
  const listed = await deps.store.follows.list(
    { followable_type: query.followable_type, followable_id: query.followable_id, user_id: query.user_id },
    viewerOf(caller),
    query,
  );
  const joined = { users: listed.rows.map((r) => r.user), pages: listed.rows.map((r) => r.page) };
  return listResult(await toFollowRecords(deps, caller, listed.rows, joined), listed);
}

/** One follow, to whoever sees it in the list: a follow of a secret page is as hidden as the page (404). */
export async function getFollow(deps: Deps, caller: Caller, id: string): Promise<Follow> {
  const follow = await deps.store.follows.getVisible(id, viewerOf(caller));
  if (!follow) throw notFound('Follow');
  return (await toFollowRecords(deps, caller, [follow]))[0]!;
}

/** Follows with what each follows embedded (the user or the page; those a list's rows carry are not read again). */
async function toFollowRecords(deps: Deps, caller: Caller, rows: FollowRow[], joined?: Parameters<typeof loadEmbeds>[5]): Promise<Follow[]> {
  const of = (type: string) => rows.map((r) => (r.followable_type === type ? r.followable_id : null));
  const { users, pages } = await loadEmbeds(deps.store, caller, of('User'), of('Page'), deps.clock(), joined);
  return rows.map((r) => toFollowRecord(r, (r.followable_type === 'Page' ? pages.get(r.followable_id) : users.get(r.followable_id)) ?? null));
}

/** Unfollows: the follower themself or a project administrator. */
export async function deleteFollow(deps: Deps, caller: Caller, id: string): Promise<void> {
  await deps.store.transaction(async (tx) => {
    // A follow of a secret page is as hidden as the page: 404, not 403, to those outside it.
    const follow = await tx.follows.getVisible(id, viewerOf(caller));
    if (!follow) throw notFound('Follow');
    if (follow.user_id !== caller.user.id && !caller.isAdmin) throw forbidden('You may delete only your own follows');
    if (!(await tx.follows.delete(id))) throw notFound('Follow');
  });
}
