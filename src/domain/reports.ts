import { AppError, conflict, ErrorCode, forbidden, invalidFields, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { reportedFor } from '../shared/report-kinds.js';
import { listResult, type ListResult } from '../shared/schemas/common.js';
import { REPORT_EXCERPT, type CreateReportInput, type ListReportsQuery, type Report, type ResolveReportInput } from '../shared/schemas/reports.js';
import { isUniqueViolation } from '../store/errors.js';
import type { ReportRow } from '../store/reports.js';
import type { UserRow } from '../store/users.js';
import type { Store } from '../store/store.js';
import { actingUser, holdContent, readableComment, readableStatus } from './content-access.js';
import { inTurn, nowIso, viewerOf, type Caller, type Deps } from './context.js';
import { excerpt, notifyUsers, pageRef, projectAdminIds, userRef } from './notifications.js';
import { requireActingFor, requirePermission } from './permissions.js';
import { alreadyRemoved, mayRemove, mayRemoveIn, moderatesPage, pageOfStatus, removeCommentIn, removeStatusIn } from './removals.js';
import { settleReportsIn, toReportRecords } from './report-settlement.js';
import { isLastUnsuspendedAdmin, suspendIn } from './suspensions.js';
import { recordWebhookEvent } from './webhooks.js';

/**
 * Reports (docs/api.md, "Moderating content and people"): anyone who can see a status, a comment or a user reports it, once while open. Admins
 * see every report, a page's administrators those on content in their pages, anyone else their own. Settling
 * one settles every open report on the same target the same way, once however many settle at the same time.
 */

/** Content the reporter cannot read is, for a report, content they cannot see: 404, not the read's 403. */
const unseenIs404 = <T>(read: Promise<T>, what: 'Status' | 'Comment'): Promise<T> =>
  read.catch((error: unknown) => {
    throw error instanceof AppError && error.status === 403 ? notFound(what) : error;
  });

/**
 * The reporter and what they report (its author, page and excerpt), once they may report it; `held`: in the report's
 * transaction, the content held against its removal meanwhile (domain/README.md, "Content held").
 */
async function reportable(store: Store, caller: Caller, input: CreateReportInput, now: string, held: boolean) {
  const { user: reporter, viewer } = await actingUser(store, caller, input.user_id);
  let target: { user: string; page: string | null; excerpt: string };
  if (input.target_type === 'User') {
    const user = await store.users.getById(input.target_id);
    if (!user) throw notFound('User');
    target = { user: user.id, page: null, excerpt: user.nickname };
  } else if (input.target_type === 'Status') {
    // Removed content is gone for reporting: an Admin, who still reads it, is told so (409), not that it does not exist.
    const status = await unseenIs404(readableStatus(store, viewer, input.target_id, now), 'Status').catch((error: unknown) =>
      alreadyRemoved(store, caller, 'Status', input.target_id, error),
    );
    if (held && !(await holdContent(store, 'Status', status.id, 'share'))) throw notFound('Status');
    target = { user: status.user_id, page: await pageOfStatus(store, status), excerpt: excerpt(status.content, REPORT_EXCERPT) };
  } else {
    const { comment, status } = await unseenIs404(readableComment(store, viewer, input.target_id, now), 'Comment').catch((error: unknown) =>
      alreadyRemoved(store, caller, 'Comment', input.target_id, error),
    );
    if (held && !(await holdContent(store, 'Comment', comment.id, 'share', status.id))) throw notFound('Comment');
    target = { user: comment.user_id, page: await pageOfStatus(store, status), excerpt: excerpt(comment.content, REPORT_EXCERPT) };
  }
  // Nothing a moderator could do with it. (Reporting one's own content is a way to settle its reports by removing it.)
  if (input.target_type === 'User' && target.user === reporter.id)
    throw invalidFields([{ field: 'target_id', message: 'is you: a user cannot report themself' }]);
  return { reporter, target };
}

const alreadyReported = () => conflict(ErrorCode.alreadyReported, 'You already have an open report on this');

export async function createReport(deps: Deps, caller: Caller, input: CreateReportInput): Promise<Report> {
  requireActingFor(caller, input.user_id);
  // Refused before it waits for moderation's turn (domain/README.md): refused reports hold no moderator up. A duplicate
  // too, by its row alone; one sent meanwhile is still refused by the insert's unique index.
  const allowed = await reportable(deps.store, caller, input, nowIso(deps), false);
  const { target_type, target_id } = input;
  if (await deps.store.reports.has({ user_id: allowed.reporter.id, target_type, target_id, state: 'open' })) throw alreadyReported();
  const row = await deps.store.transaction(async (tx) => {
    await tx.takeTurns('moderation');
    const now = nowIso(deps);
    const { reporter, target } = await reportable(tx, caller, input, now, true);
    const report: ReportRow = {
      id: newId(),
      user_id: reporter.id,
      target_type: input.target_type,
      target_id: input.target_id,
      target_user_id: target.user,
      page_id: target.page,
      excerpt: target.excerpt,
      reason: input.reason,
      comment: input.comment ?? null,
      state: 'open',
      resolution: null,
      resolved_by: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await tx.reports.insert(report);
    } catch (error) {
      if (isUniqueViolation(error, 'reports')) throw alreadyReported();
      throw error;
    }
    await recordWebhookEvent(tx, now, 'report.created', (await toReportRecords(tx, caller, [report], new Date(now)))[0]);
    await tellModerators(tx, now, caller, report, reporter);
    return report;
  });
  deps.webhooks?.wake();
  return (await toReportRecords(deps.store, caller, [row], deps.clock()))[0]!;
}

/**
 * Those who settle a new report are told, so that a moderation queue open on their screen shows it at once: the
 * creator of the page the content is in and every Admin, as for an access request. The notification names the
 * place, never the content (which may be removed and should not live on in notifications).
 */
async function tellModerators(tx: Store, now: string, caller: Caller, report: ReportRow, reporter: UserRow) {
  const page = report.page_id ? await tx.pages.getById(report.page_id) : undefined;
  const reported = page ? undefined : await tx.users.getById(report.target_user_id);
  const place = page ? pageRef(page) : reported ? userRef(reported) : undefined;
  if (!place) return;
  await notifyUsers(
    tx,
    now,
    {
      type: 'report',
      action: 'reported',
      subject: userRef(reporter),
      target: { type: report.target_type, id: report.target_id },
      finalTarget: place,
      link: { type: 'Report', id: report.id },
    },
    [...(page ? [page.user_id] : []), ...(await projectAdminIds(tx))],
    [reporter.id, caller.user.id],
  );
}

export async function listReports(deps: Deps, caller: Caller, query: ListReportsQuery): Promise<ListResult<Report>> {
  const { state, target_type, target_id, user_id } = query;
  const listed = await deps.store.reports.list(viewerOf(caller), { state, target_type, target_id, user_id }, query);
  return listResult(await toReportRecords(deps.store, caller, listed.rows, deps.clock()), listed);
}

async function visibleReport(store: Store, caller: Caller, id: string): Promise<ReportRow> {
  const row = await store.reports.getVisible(id, viewerOf(caller));
  if (!row) throw notFound('Report');
  return row;
}

export async function getReport(deps: Deps, caller: Caller, id: string): Promise<Report> {
  return (await toReportRecords(deps.store, caller, [await visibleReport(deps.store, caller, id)], deps.clock()))[0]!;
}

const SETTLE_REFUSAL = 'Only those who may remove the content (for a user: project administrators) settle its reports';
const AUTHOR_REFUSAL = 'The author of reported content settles its reports only by removing it (action remove)';
const SELF_REFUSAL = 'Reports against you are settled by another project administrator';

/**
 * Refuses (403) a caller who may not settle reports on the target this way: those who may remove the content
 * (Admins for a user), except its author, who may take it down (`remove`) but never clear the reports against it.
 * Admins too: an Admin clears no report against their content or themselves, unless no other Admin could.
 */
async function requireMaySettle(
  store: Store,
  now: string,
  caller: Caller,
  row: ReportRow,
  action: ResolveReportInput['action'] | null,
): Promise<void> {
  if (caller.user.id === row.target_user_id) {
    // One who also administers the page still clears no report against their own content.
    const refusal = row.target_type === 'User' ? (caller.isAdmin ? SELF_REFUSAL : SETTLE_REFUSAL) : action !== 'remove' ? AUTHOR_REFUSAL : undefined;
    if (refusal) {
      // The last Admin may: no one else could, and the report would wait for ever. (Asked only here: it locks the role.)
      if (caller.isAdmin && (await isLastUnsuspendedAdmin(store, now, caller.user))) return;
      throw forbidden(refusal);
    }
  }
  if (caller.isAdmin) return;
  if (row.target_type === 'User') throw forbidden(SETTLE_REFUSAL);
  // The content may be gone (removed meanwhile): its page, kept on the report, still says who administers it.
  const keptPage = async () => row.page_id;
  if (caller.user.id === row.target_user_id) {
    // Removing it is the removal's rule: as its author with `statuses.destroy`, as its page's creator without.
    if (!(await mayRemoveIn(store, caller, caller.user.id, keptPage))) requirePermission(caller, 'statuses', 'destroy');
    return;
  }
  if (!(await moderatesPage(store, caller, row.page_id))) throw forbidden(SETTLE_REFUSAL);
}

/** Carries out a resolution on the target, in the settle's transaction. */
async function act(tx: Store, now: string, caller: Caller, row: ReportRow, input: ResolveReportInput, told: string[]): Promise<void> {
  if (input.action === 'suspend') {
    if (!caller.isAdmin) throw forbidden('Only project administrators (role Admins) may suspend users');
    const user = await tx.users.getById(row.target_user_id);
    if (!user) throw notFound('User');
    await suspendIn(tx, now, caller, user, { reason: input.reason!, until: input.until });
  } else if (input.action === 'remove') {
    if (row.target_type === 'User') throw invalidFields([{ field: 'action', message: 'a user cannot be removed: suspend them' }]);
    // Without a reason of its own, the removal keeps the report's: its author and `removed list` see why.
    const reason = input.reason ?? reportedFor(row.reason);
    if (row.target_type === 'Status') {
      const status = await tx.statuses.getById(row.target_id);
      if (status && (await mayRemove(tx, caller, status.user_id, status))) await removeStatusIn(tx, now, caller, status, reason, told);
    } else {
      const comment = await tx.comments.getById(row.target_id);
      const status = comment && (await tx.statuses.getById(comment.status_id));
      if (comment && status && (await mayRemove(tx, caller, comment.user_id, status)))
        await removeCommentIn(tx, now, caller, comment, status, reason, told);
    }
  }
}

/** The report, once the caller may settle it this way and it is still open. */
async function settleable(store: Store, now: string, caller: Caller, id: string, input: ResolveReportInput | null): Promise<ReportRow> {
  const row = await visibleReport(store, caller, id);
  await requireMaySettle(store, now, caller, row, input?.action ?? null);
  if (row.state !== 'open') throw conflict(ErrorCode.conflict, `This report is already ${row.state}`);
  return row;
}

async function settle(deps: Deps, caller: Caller, id: string, input: ResolveReportInput | null): Promise<Report> {
  return inTurn(deps, (store, now) => settleable(store, now, caller, id, input), async (tx, row, now) => {
    const target = { type: row.target_type as Report['target_type'], id: row.target_id };
    // Held before the reports are (as a removal holds them): a removal of the same content under way goes first.
    if (input?.action === 'remove' && target.type !== 'User') await holdContent(tx, target.type, target.id, 'remove');
    const records = await settleReportsIn(tx, now, caller, [target], input?.action ?? null, {
      leadId: row.id,
      then: async (settled) => {
        // Another settle of the same target came first: it acted; this one does not act again.
        if (!settled.some((r) => r.id === row.id)) throw conflict(ErrorCode.conflict, 'This report was settled meanwhile');
        // The reporters this settling tells after the removal: their counters are taken with those the removal tells.
        if (input) await act(tx, now, caller, row, input, settled.map((r) => r.user_id));
      },
    });
    return records.find((r) => r.id === row.id)!;
  });
}

export const resolveReport = (deps: Deps, caller: Caller, id: string, input: ResolveReportInput) => settle(deps, caller, id, input);
export const dismissReport = (deps: Deps, caller: Caller, id: string) => settle(deps, caller, id, null);
