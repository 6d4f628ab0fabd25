import { requireNotSuspendedUser } from './suspensions.js';
import { AppError, ErrorCode, forbidden, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { listResult, type ListResult } from '../shared/schemas/common.js';
import type {
  AccessRequest,
  CreateAccessRequestInput,
  ListAccessRequestsQuery,
} from '../shared/schemas/membership.js';
import type { AccessRequestListed, AccessRequestRow } from '../store/membership.js';
import type { PageRow } from '../store/pages.js';
import type { Store } from '../store/store.js';
import { inTurn, nowIso, viewerOf, type Caller, type Deps } from './context.js';
import { recordAudit } from './audit.js';
import { addMember } from './membership.js';
import { administersPage, canSeePage, findVisiblePage, isMember } from './pages.js';
import { requireActingFor } from './permissions.js';
import { actingUser } from './content-access.js';
import { loadEmbeds } from './records.js';
import { notifyUsers, pageRef, projectAdminIds, userRef } from './notifications.js';
import { recordWebhookEvent } from './webhooks.js';

async function toRecords(store: Store, caller: Caller, rows: AccessRequestListed[], now: Date): Promise<AccessRequest[]> {
  const joined = { users: rows.map((r) => r.user), pages: rows.map((r) => r.page) };
  const embeds = await loadEmbeds(store, caller, rows.map((r) => r.user_id), rows.map((r) => r.page_id), now, joined);
  return rows.map((r) => ({
    id: r.id,
    page_id: r.page_id,
    user_id: r.user_id,
    page: embeds.page(r.page_id),
    user: embeds.user(r.user_id),
    is_validate: r.is_validate === 1,
    state: r.state as AccessRequest['state'],
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

const toRecord = async (store: Store, caller: Caller, row: AccessRequestListed, now: Date) =>
  (await toRecords(store, caller, [row], now))[0]!;

const alreadyMember = () => new AppError(409, ErrorCode.alreadyMember, 'This user is already in this page');
const alreadyAsked = () => new AppError(409, ErrorCode.accessRequestPending, 'An access request from this user to this page is already waiting');

/**
 * Asks to join a page. Rule 1: one waiting request per user and page (a unique index, so concurrent
 * duplicates end in one record). Rule 2: a member may not ask. A secret page is 404 to outsiders, and
 * joined by invite only (docs/api.md, "Resources"), so even those who can see it cannot ask for somebody to join it.
 */
export async function createAccessRequest(
  deps: Deps,
  caller: Caller,
  input: CreateAccessRequestInput,
): Promise<AccessRequest> {
  requireActingFor(caller, input.user_id);
  // Rules 1 and 2 before it waits for moderation's turn (domain/README.md), so that refused requests hold no moderator
  // up: by the asker's follow and waiting request alone, as its page and user are read once, under the lock
  // (test/api/one-statement-lists). Either tells of a page they know (a secret one is asked to join by nobody).
  if (await isMember(deps.store, input.user_id, input.page_id)) throw alreadyMember();
  if (await deps.store.accessRequests.has({ page_id: input.page_id, user_id: input.user_id, state: 'waiting' })) throw alreadyAsked();
  const record = await deps.store.transaction(async (tx) => {
    await tx.takeTurns('moderation');
    const page = await findVisiblePage(tx, caller, input.page_id);
    const { user } = await actingUser(tx, caller, input.user_id);
    if (await isMember(tx, input.user_id, page.id)) throw alreadyMember();
    if (page.privacy === 'secret') throw forbidden('This page is secret: it is joined by invite only');
    const now = nowIso(deps);
    const row = {
      id: newId(),
      page_id: page.id,
      user_id: input.user_id,
      state: 'waiting' as const,
      is_validate: 0,
      created_at: now,
      updated_at: now,
    };
    // A request sent meanwhile: one waiting row per user and page, decided by the unique index.
    if (!(await tx.accessRequests.insertWaiting(row))) throw alreadyAsked();
    const created = await toRecord(tx, caller, { ...row, user, page }, new Date(now));
    await recordWebhookEvent(tx, now, 'page_access_request.created', created);
    // The page's administrators: its creator and every project administrator.
    await notifyUsers(
      tx,
      now,
      {
        type: 'page_access_request',
        action: 'requested',
        subject: userRef(created.user),
        target: { type: 'PageAccessRequest', id: row.id },
        finalTarget: pageRef(page),
        link: { type: 'PageAccessRequest', id: row.id },
      },
      [page.user_id, ...(await projectAdminIds(tx))],
      [row.user_id, caller.user.id],
    );
    return created;
  });
  deps.webhooks?.wake();
  return record;
}

export async function listAccessRequests(
  deps: Deps,
  caller: Caller,
  query: ListAccessRequestsQuery,
): Promise<ListResult<AccessRequest>> {
  if (query.page_id !== undefined) await findVisiblePage(deps.store, caller, query.page_id);
  const listed = await deps.store.accessRequests.list(
    { page_id: query.page_id, user_id: query.user_id, state: query.state },
    viewerOf(caller),
    query,
  );
  return listResult(await toRecords(deps.store, caller, listed.rows, deps.clock()), listed);
}

/** The request, once the caller is known to administer its page (rule 4). */
async function requestToSettle(tx: Store, caller: Caller, id: string): Promise<AccessRequestRow & { page: PageRow }> {
  const refusal = 'Only an administrator of the page can accept or refuse its access requests';
  // The store's rule of who may know of a request (`accessRequestsSeenBy`: the one the list follows);
  // one they may not know of is a 403 when they know of its page, else a 404 (its page is secret to them).
  const viewer = viewerOf(caller);
  const row = await tx.accessRequests.getVisible(id, viewer);
  if (!row) {
    const hidden = await tx.accessRequests.getById(id);
    if (hidden && (await canSeePage(tx, viewer, hidden.page_id))) throw forbidden(refusal);
    throw notFound('Access request');
  }
  const page = await tx.pages.getById(row.page_id);
  if (!page) throw notFound('Access request');
  if (!administersPage(caller, page)) throw forbidden(refusal);
  if (row.state === 'accepted') throw new AppError(409, ErrorCode.alreadyAccepted, 'This access request was already accepted');
  return { ...row, page };
}

/** Accepts a waiting request: is_validate true, and the user follows the page, in one transaction (rule 5). */
export async function acceptAccessRequest(deps: Deps, caller: Caller, id: string): Promise<AccessRequest> {
  return inTurn(deps, (store) => requestToSettle(store, caller, id), async (tx, row, now) => {
    // Read once: whether they are suspended, and the record's user.
    const user = await tx.users.getById(row.user_id);
    if (!user) throw notFound('Access request');
    await requireNotSuspendedUser(tx, now, user);
    if (!(await tx.accessRequests.settle(row.id, { state: 'accepted', is_validate: 1, updated_at: now })))
      throw new AppError(409, ErrorCode.alreadyAccepted, 'This access request was already accepted');
    const accepted = await toRecord(tx, caller, { ...row, user, state: 'accepted', is_validate: 1, updated_at: now }, new Date(now));
    await recordWebhookEvent(tx, now, 'page_access_request.updated', accepted);
    await recordAudit(tx, now, caller, {
      action: 'page_access_request.accept',
      target_id: row.id,
      summary: `accepted ${accepted.user.nickname}'s request to join ${accepted.page.name}`,
    });
    await notifyUsers(
      tx,
      now,
      {
        type: 'page_access_request_accepted',
        action: 'accepted',
        subject: userRef(caller.user),
        target: { type: 'PageAccessRequest', id: row.id },
        finalTarget: pageRef(accepted.page),
        link: { type: 'Page', id: accepted.page.id, slug: accepted.page.slug },
      },
      [row.user_id],
      [caller.user.id],
    );
    // The follow that makes them a member, last (domain/README.md, "Follows and statuses last").
    await addMember(tx, row.user_id, row.page_id, now);
    return accepted;
  });
}

/** Refuses a waiting request: the record is deleted. */
export async function refuseAccessRequest(deps: Deps, caller: Caller, id: string): Promise<void> {
  await inTurn(deps, (store) => requestToSettle(store, caller, id), async (tx, row, now) => {
    const record = await toRecord(tx, caller, row, new Date(now));
    if (!(await tx.accessRequests.delete(row.id, { onlyWaiting: true }))) throw notFound('Access request');
    await recordWebhookEvent(tx, now, 'page_access_request.deleted', record);
    await recordAudit(tx, now, caller, {
      action: 'page_access_request.refuse',
      target_id: row.id,
      summary: `refused ${record.user.nickname}'s request to join ${record.page.name}`,
    });
  });
}
