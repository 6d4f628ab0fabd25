import { requireNotSuspendedUser } from './suspensions.js';
import { AppError, ErrorCode, forbidden, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { listResult, type ListResult } from '../shared/schemas/common.js';
import type { CreateInvitesInput, Invite, InviteCreation, ListInvitesQuery } from '../shared/schemas/membership.js';
import type { InviteListed, InviteRow } from '../store/membership.js';
import type { PageRow } from '../store/pages.js';
import type { Store } from '../store/store.js';
import { inTurn, nowIso, viewerOf, type Caller, type Deps } from './context.js';
import { recordAudit } from './audit.js';
import { addMember } from './membership.js';
import { administersPage, canSeePage, findVisiblePage, isMember } from './pages.js';
import { requireActingFor } from './permissions.js';
import { actingUser, viewerById } from './content-access.js';
import { loadEmbeds } from './records.js';
import { notifyUsers, pageRef, userRef } from './notifications.js';
import { recordWebhookEvent } from './webhooks.js';
import { suspensionOf } from './users.js';

/** Messages of the invite creation's errors array (the first is the spec's, to the letter). */
export const INVITE_ERRORS = {
  alreadyInvited: 'User already invite',
  alreadyMember: 'User already member',
  notFound: 'User not found',
  suspended: 'User suspended',
} as const;

async function toRecords(store: Store, caller: Caller, rows: InviteListed[], now: Date): Promise<Invite[]> {
  const joined = { users: rows.flatMap((r) => [r.user, r.user_target]), pages: rows.map((r) => r.target) };
  const embeds = await loadEmbeds(store, caller, rows.flatMap((r) => [r.user_id, r.user_target_id]), rows.map((r) => r.target_id), now, joined);
  return rows.map((r) => ({
    id: r.id,
    target_type: 'Page' as const,
    target_id: r.target_id,
    user_id: r.user_id,
    user_target_id: r.user_target_id,
    user: embeds.user(r.user_id),
    user_target: embeds.user(r.user_target_id),
    target: embeds.page(r.target_id),
    is_accepted: r.is_accepted === 1,
    is_validate: r.is_validate === null ? null : r.is_validate === 1,
    state: r.state as Invite['state'],
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

/** Members of a page, and its administrators, may invite to it. */
async function requireCanInvite(tx: Store, caller: Caller, senderId: string, page: PageRow): Promise<void> {
  if (administersPage(caller, page) || page.user_id === senderId || (await isMember(tx, senderId, page.id))) return;
  throw forbidden('Only members of the page may invite users to it');
}

/**
 * Invites several users at once. Each invitee is settled on its own: invited (in `success`), or named in
 * `errors` with why not (rule 3: a waiting invite or membership already). A unique index keeps one
 * waiting invite per user and page even when invites race.
 */
export async function createInvites(deps: Deps, caller: Caller, input: CreateInvitesInput): Promise<InviteCreation> {
  requireActingFor(caller, input.user_id);
  const page = await findVisiblePage(deps.store, caller, input.target_id);
  const { user: sender } = await actingUser(deps.store, caller, input.user_id);
  await requireCanInvite(deps.store, caller, input.user_id, page);

  /** Rule 3, by the invitee's follow and waiting invite alone (neither read again): why not invited, if so. */
  const invitedAlready = async (store: Store, targetId: string): Promise<string | undefined> => {
    if (await isMember(store, targetId, page.id)) return INVITE_ERRORS.alreadyMember;
    if (await store.invites.has({ target_id: page.id, user_target_id: targetId, state: 'waiting' })) return INVITE_ERRORS.alreadyInvited;
    return undefined;
  };

  // Each invite's records (its users, its page) as read here: its record and the answer read none again.
  const created: InviteListed[] = [];
  const errors: Record<string, string>[] = [];
  for (const targetId of input.user_target_ids) {
    // Refused before it waits for moderation's turn (domain/README.md): refused invites hold no moderator up.
    const outcome = (await invitedAlready(deps.store, targetId)) ?? await deps.store.transaction(async (tx): Promise<InviteListed | string> => {
      await tx.takeTurns('moderation');
      const target = await tx.users.getById(targetId);
      if (!target) return INVITE_ERRORS.notFound;
      const invited = await invitedAlready(tx, targetId);
      if (invited) return invited;
      const now = nowIso(deps);
      if (suspensionOf(target, new Date(now))) return INVITE_ERRORS.suspended;
      const row = {
        id: newId(),
        target_type: 'Page',
        target_id: page.id,
        user_id: input.user_id,
        user_target_id: targetId,
        state: 'waiting' as const,
        is_validate: null,
        is_accepted: 0,
        created_at: now,
        updated_at: now,
      };
      // One waiting invite per user and page, decided by the unique index (whoever inserts first, in any process).
      if (!(await tx.invites.insertWaiting(row))) return INVITE_ERRORS.alreadyInvited;
      const listed: InviteListed = { ...row, user: sender, user_target: target, target: page };
      const [record] = await toRecords(tx, caller, [listed], new Date(now));
      await recordWebhookEvent(tx, now, 'invite.created', record);
      await notifyUsers(
        tx,
        now,
        {
          type: 'invite',
          action: 'invited',
          subject: userRef(record!.user),
          target: { type: 'Invite', id: row.id },
          finalTarget: pageRef(page),
          link: { type: 'Invite', id: row.id },
        },
        [targetId],
        [input.user_id, caller.user.id],
      );
      return listed;
    });
    if (typeof outcome === 'string') errors.push({ [targetId]: outcome });
    else created.push(outcome);
  }
  if (created.length) deps.webhooks?.wake();
  return { success: await toRecords(deps.store, caller, created, deps.clock()), errors };
}

export async function listInvites(deps: Deps, caller: Caller, query: ListInvitesQuery): Promise<ListResult<Invite>> {
  if (query.target_id !== undefined) await findVisiblePage(deps.store, caller, query.target_id);
  const listed = await deps.store.invites.list(
    {
      target_id: query.target_id,
      user_id: query.user_id,
      user_target_id: query.user_target_id,
      state: query.state,
    },
    viewerOf(caller),
    query,
  );
  return listResult(await toRecords(deps.store, caller, listed.rows, deps.clock()), listed);
}

/**
 * The invite, if the caller may know of it (the store's rule, `invitesSeenBy`: the one the list follows).
 * One they may not know of is a 403 (`refusal`) when they know of its page (only the page's
 * administrators settle its invites: docs/api.md), else a 404: its page is secret to them.
 */
async function findInvite(tx: Store, caller: Caller, id: string, refusal: string): Promise<{ row: InviteRow; page: PageRow }> {
  const viewer = viewerOf(caller);
  const row = await tx.invites.getVisible(id, viewer);
  if (!row) {
    const hidden = await tx.invites.getById(id);
    if (hidden && (await canSeePage(tx, viewer, hidden.target_id))) throw forbidden(refusal);
    throw notFound('Invite');
  }
  const page = await tx.pages.getById(row.target_id);
  if (!page) throw notFound('Invite');
  return { row, page };
}

const SETTLE_REFUSAL = 'Only an administrator of the page can accept or refuse its invites';
const WITHDRAW_REFUSAL = 'Only the sender or an administrator of the page can delete an invite';

const settledConflict = (state: string) =>
  state === 'accepted'
    ? new AppError(409, ErrorCode.alreadyAccepted, 'This invite was already accepted')
    : new AppError(409, ErrorCode.alreadyRefused, 'This invite was already refused');

/** Accepts or refuses a waiting invite (rule 4: page administrators only); accepting makes the invitee a member. */
async function settleInvite(deps: Deps, caller: Caller, id: string, accept: boolean): Promise<Invite> {
  /** The invite and its page, once the caller may settle it and it still waits. */
  const settleable = async (store: Store) => {
    const found = await findInvite(store, caller, id, SETTLE_REFUSAL);
    if (!administersPage(caller, found.page)) throw forbidden(SETTLE_REFUSAL);
    if (found.row.state !== 'waiting') throw settledConflict(found.row.state);
    return found;
  };
  return inTurn(deps, settleable, async (tx, { row, page }, now) => {
    if (accept) await requireNotSuspendedUser(tx, now, row.user_target_id);
    const changes = { state: accept ? 'accepted' : 'refused', is_validate: accept ? 1 : 0, is_accepted: accept ? 1 : 0, updated_at: now };
    if (!(await tx.invites.settle(row.id, changes))) {
      const current = await tx.invites.getById(row.id);
      throw settledConflict(current?.state ?? 'accepted');
    }
    const settled: InviteRow = { ...row, ...changes };
    const [result] = await toRecords(tx, caller, [settled], new Date(now));
    await recordWebhookEvent(tx, now, 'invite.updated', result);
    await recordAudit(tx, now, caller, {
      action: accept ? 'invite.accept' : 'invite.refuse',
      target_id: row.id,
      summary: `${accept ? 'accepted' : 'refused'} the invite of ${result!.user_target.nickname} to ${page.name}`,
    });
    // The invited user has joined: they and whoever invited them are told (not whoever accepted), the sender while they
    // may know of the page: once out of its secret page, the news would name to them one who is in it.
    if (accept)
      await notifyUsers(
        tx,
        now,
        {
          type: 'invite_accepted',
          action: 'accepted',
          subject: userRef(caller.user),
          target: { type: 'Invite', id: row.id },
          finalTarget: pageRef(page),
          link: { type: 'Page', id: page.id, slug: page.slug },
        },
        [row.user_target_id, ...((await seesPage(tx, row.user_id, page.id)) ? [row.user_id] : [])],
        [caller.user.id],
      );
    // The follow that makes them a member, last (domain/README.md, "Follows and statuses last").
    if (accept) await addMember(tx, row.user_target_id, row.target_id, now);
    return result!;
  });
}

/** Whether the user may know of the page (`canSeePage`, as they would read it). */
async function seesPage(store: Store, userId: string, pageId: string): Promise<boolean> {
  const viewer = await viewerById(store, userId);
  return viewer !== undefined && (await canSeePage(store, viewer, pageId));
}

export const acceptInvite = (deps: Deps, caller: Caller, id: string) => settleInvite(deps, caller, id, true);
export const refuseInvite = (deps: Deps, caller: Caller, id: string) => settleInvite(deps, caller, id, false);

/** Withdraws a waiting invite: its sender or a page administrator (a settled one is kept: 409). */
export async function deleteInvite(deps: Deps, caller: Caller, id: string): Promise<void> {
  /** The invite and its page, once the caller may withdraw it. */
  const withdrawable = async (store: Store) => {
    const found = await findInvite(store, caller, id, WITHDRAW_REFUSAL);
    if (found.row.user_id !== caller.user.id && !administersPage(caller, found.page)) throw forbidden(WITHDRAW_REFUSAL);
    // Only a waiting invite is withdrawn: a refusal is kept (its sender would erase it), an acceptance too.
    if (found.row.state !== 'waiting') throw settledConflict(found.row.state);
    return found;
  };
  await inTurn(deps, withdrawable, async (tx, { row, page }, now) => {
    const [record] = await toRecords(tx, caller, [row], new Date(now));
    // The delete says whether this request withdrew it: withdrawals racing on PostgreSQL all read it, and each sent
    // its own invite.deleted webhook and audit entry.
    if (!(await tx.invites.delete(row.id))) throw notFound('Invite');
    await recordWebhookEvent(tx, now, 'invite.deleted', record);
    await recordAudit(tx, now, caller, {
      action: 'invite.withdraw',
      target_id: row.id,
      summary: `withdrew the invite of ${record!.user_target.nickname} to ${page.name}`,
    });
  });
}

export async function getInvite(deps: Deps, caller: Caller, id: string): Promise<Invite> {
  const { row } = await findInvite(deps.store, caller, id, 'You may read only invites you sent or received, or those to a page you administer');
  return (await toRecords(deps.store, caller, [row], deps.clock()))[0]!;
}
