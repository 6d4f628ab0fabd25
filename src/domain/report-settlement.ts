import type { Report, ResolveReportInput } from '../shared/schemas/reports.js';
import type { ReportListed, ReportRow } from '../store/reports.js';
import type { Store } from '../store/store.js';
import { recordAudit, type AuditFact } from './audit.js';
import type { Caller } from './context.js';
import { excerpt, notifyUsers, userRef } from './notifications.js';
import { loadEmbeds } from './records.js';
import { recordWebhookEvent } from './webhooks.js';

/**
 * Settling reports (docs/api.md, "Moderating content and people"), however it comes about: a report resolved or
 * dismissed, or the content removed (its author, its page's creator or an Admin deleting it, a status taking its
 * comments along). Kept apart from reports.ts so that removals, which reports.ts calls, settle the same way.
 */

export type ReportTarget = { type: Report['target_type']; id: string };

export async function toReportRecords(store: Store, caller: Caller, rows: ReportListed[], now: Date): Promise<Report[]> {
  // The user reported, or the content's author: whose suspension hides the excerpt from all but Admins.
  const { users } = await loadEmbeds(store, caller, rows.map((r) => r.target_user_id), [], now, { users: rows.map((r) => r.target) });
  return rows.map((r) => {
    const user = users.get(r.target_user_id);
    return {
      id: r.id,
      user_id: r.user_id,
      target_type: r.target_type as Report['target_type'],
      target_id: r.target_id,
      reason: r.reason as Report['reason'],
      comment: r.comment,
      state: r.state as Report['state'],
      resolution: r.resolution as Report['resolution'],
      resolved_by: r.resolved_by,
      created_at: r.created_at,
      updated_at: r.updated_at,
      target: {
        type: r.target_type as Report['target_type'],
        id: r.target_id,
        excerpt: excerptShown(caller, r, users.get(r.target_user_id)),
        user: user ?? null,
      },
    };
  });
}

/**
 * What a report (or its queue item) shows of the content as reported: nothing for a user, nor for removed content (its
 * excerpt emptied by the removal); while the content's author
 * is suspended, their content is hidden from all but Admins (docs/api.md), and so is the excerpt: the report and the
 * queue item still say who and why.
 */
export const excerptShown = (
  caller: Caller,
  report: { target_type: string | null; excerpt: string | null },
  author: { suspension?: unknown } | undefined,
): string | null => (report.target_type === 'User' || (!caller.isAdmin && !!author?.suspension) ? null : report.excerpt || null);

const RESOLUTION = { remove: 'removed', suspend: 'suspended', none: 'none' } as const;

/**
 * Settles every open report on the targets by the caller, in the caller's transaction: resolved with `action`,
 * or dismissed when it is null. Each settled report goes to the webhooks as `report.updated`; each target with
 * settled reports gets one audit entry naming its lead report (`leadId`, the one the caller settled, or else its
 * first), and each of its reporters a `report_resolved` notification linking to their own report, its `action_name`
 * what was done. Reports already settled are left alone, so a target settled once (a resolve that then removes the
 * content) is neither told nor audited twice. `then` runs between the settling and the telling: the records sent
 * show what it did. `alsoTold`: users the caller tells besides (a removal's author), whose counters are taken with
 * the reporters'. Answers the reports settled, oldest first.
 */
export async function settleReportsIn(
  tx: Store,
  now: string,
  caller: Caller,
  targets: ReportTarget[],
  action: ResolveReportInput['action'] | null,
  { leadId, then, alsoTold = [] }: { leadId?: string; then?: (settled: ReportRow[]) => Promise<void>; alsoTold?: string[] } = {},
): Promise<Report[]> {
  const change = {
    state: action ? 'resolved' : 'dismissed',
    resolution: action ? RESOLUTION[action] : null,
    resolved_by: caller.user.id,
    updated_at: now,
  };
  const rows = await tx.reports.settle(targets, change);
  // What settling does to the target (a suspension, a removal) comes before the records that show it. Before the
  // counters too: a removal deletes the status's pending fan-outs, whose batch holds its job and then takes counters.
  await then?.(rows);
  // Everyone this act may tell (the reporters; the author, of a removal), their counters taken at once in id order
  // as a fan-out batch takes them: told one by one, in another order, a post's fan-out meanwhile deadlocked with it.
  const mayTell = new Set([...rows.flatMap((r) => [r.user_id, r.target_user_id]), ...alsoTold]);
  if (mayTell.size > 1) await tx.notifications.holdCounters([...mayTell]);
  // Removed, the content is no longer quoted (its reports' excerpts emptied by the removal): not by the settle's
  // answer nor by its report.updated either. The audit entry still quotes it (`describeTarget`, from `rows`).
  const shown = action === 'remove' ? rows.map((r) => (r.target_type === 'User' ? r : { ...r, excerpt: '' })) : rows;
  const records = await toReportRecords(tx, caller, shown, new Date(now));
  for (const record of records) await recordWebhookEvent(tx, now, 'report.updated', record);
  const verb = action ? 'resolved' : 'dismissed';
  // A reporter is told what was done: `removed`, `suspended`, `resolved` (nothing done) or `dismissed`. Content
  // removed by its own author reads "alice removed the status you reported", not "alice resolved your report".
  const told = action === 'remove' || action === 'suspend' ? RESOLUTION[action] : verb;
  const byTarget = new Map<string, ReportRow[]>();
  for (const row of rows) {
    const key = `${row.target_type} ${row.target_id}`;
    const onTarget = byTarget.get(key);
    if (onTarget) onTarget.push(row);
    else byTarget.set(key, [row]);
  }
  // The audit entries written together: on PostgreSQL their counts move once a statement (migration 0048).
  const facts: AuditFact[] = [];
  for (const onTarget of byTarget.values()) {
    const lead = onTarget.find((r) => r.id === leadId) ?? onTarget[0]!;
    facts.push({
      action: action ? 'report.resolve' : 'report.dismiss',
      target_id: lead.id,
      summary: `${verb} ${onTarget.length} report(s) on ${describeTarget(lead, records)}${action ? ` (${action})` : ''}`,
    });
    // Each reporter's notification links to their own report (one open report per reporter and target).
    for (const report of onTarget)
      await notifyUsers(
        tx,
        now,
        {
          type: 'report_resolved',
          action: told,
          subject: userRef(caller.user),
          // A user by nickname; content not quoted (it may be removed, or its author suspended): the report has it.
          target: { type: report.target_type, id: report.target_id, name: report.target_type === 'User' ? report.excerpt : null },
          finalTarget: userRef(caller.user),
          link: { type: 'Report', id: report.id },
        },
        [report.user_id],
        [caller.user.id],
      );
  }
  await recordAudit(tx, now, caller, facts);
  return records;
}

/** What a person reads of a report's target in the log: the user's nickname, or the content's excerpt. */
function describeTarget(row: ReportRow, records: Report[]): string {
  const target = records.find((r) => r.id === row.id)?.target;
  if (row.target_type === 'User') return `the user ${target?.user?.nickname ?? row.target_id}`;
  const noun = row.target_type === 'Status' ? 'status' : 'comment';
  return row.excerpt ? `the ${noun} "${excerpt(row.excerpt)}"` : `the ${noun} ${row.target_id}`;
}
