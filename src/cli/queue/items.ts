import { firstWords, visibleLine } from '../safe-text.js';
import type { MembershipItem, ModerationItem, ReportItem } from '../../shared/schemas/moderation.js';
import type { Suspension } from '../../shared/schemas/suspensions.js';
import { suspensionEnd } from '../suspensions.js';
import { reportedFor } from '../../shared/report-kinds.js';

/** How the queue's items read on the screen and in its messages; every name and excerpt passes `visibleLine`. */


/** "now", "4m", "3h", "2d": how long an item has waited. */
export function waited(since: string, now = Date.now()): string {
  const s = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  if (s < 60) return 'now';
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

export const isReport = (item: ModerationItem): item is ReportItem => item.kind === 'report';

/** The list's first column: `request`, `invite`, `report`, or `report ×3` when a target has several. */
export const kindLabel = (item: ModerationItem) =>
  item.kind === 'invite' ? 'invite' : item.kind === 'report' ? (item.reports > 1 ? `report ×${item.reports}` : 'report') : 'request';

/** Whose content, or which user, a report is about: `bob's status "cheap watches…"`, `the user bob`. */
export function reportedThing(item: ReportItem, max?: number, place = true): string {
  const who = item.target.user ? visibleLine(item.target.user.nickname) : 'someone';
  if (item.target.type === 'User') return `the user ${who}`;
  const what = item.target.type === 'Comment' ? 'comment' : 'status';
  return `${who}'s ${what} ${shownExcerpt(item, max)}${place && item.page ? ` in ${visibleLine(item.page.name)}` : ''}`;
}

/** The content's first words, quoted; none while its author is suspended (hidden from all but Admins). */
const shownExcerpt = (item: ReportItem, max?: number) =>
  item.target.excerpt == null ? HIDDEN : `"${firstWords(visibleLine(item.target.excerpt), max)}"`;
export const HIDDEN = '(hidden: its author is suspended)';

/**
 * Why a report outside the queue quotes nothing of its content: removed (a removal empties the excerpt of every report
 * on it, open or settled), or hidden from all but Admins while its author is suspended.
 */
export function unquoted(target: { user?: { suspension?: Suspension | null } | null }, resolution?: string | null, now = Date.now()): string {
  return inForce(target.user?.suspension, now) && resolution !== 'removed' ? HIDDEN : '(removed)';
}

export const describeItem = (item: ModerationItem) =>
  isReport(item)
    ? reportedThing(item)
    : item.kind === 'invite'
      ? `the invite of ${visibleLine(item.user.nickname)} to ${visibleLine(item.page.name)}`
      : `${visibleLine(item.user.nickname)}'s request to join ${visibleLine(item.page.name)}`;

/**
 * The suspension in force of an item's user (a report's: reported, or the content's author; a request's asker, an
 * invite's invitee, who cannot be let in while it lasts), as the queue read it: one past its end is over, however
 * long the screen has stood since.
 */
export const suspensionNow = (item: ModerationItem, now = Date.now()): Suspension | undefined =>
  inForce(isReport(item) ? item.target.user?.suspension : item.user.suspension, now);

/** The suspension if it is in force at `now`: one past its `until` is over by itself. */
const inForce = (suspension: Suspension | null | undefined, now: number): Suspension | undefined =>
  suspension && (suspension.until === null || Date.parse(suspension.until) > now) ? suspension : undefined;

/** The list's WHERE and WHO cells: a request's page and asker; a report's page and what is reported. */
export function rowCells(item: ModerationItem, now = Date.now()): [string, string] {
  const suspended = suspensionNow(item, now) ? ' (suspended)' : '';
  if (!isReport(item)) return [visibleLine((item as MembershipItem).page.name), `${visibleLine(item.user.nickname)}${suspended}`];
  // Until when, and why, are in the details: the cell is too narrow for them beside the content's words.
  const author = `${item.target.user ? visibleLine(item.target.user.nickname) : '?'}${suspended}`;
  if (item.target.type === 'User') return ['-', `user ${author}`];
  return [item.page ? visibleLine(item.page.name) : '-', `${author}: ${item.target.excerpt == null ? HIDDEN : visibleLine(item.target.excerpt)}`];
}

/** The settling a key asks for, and how its question and its outcome read. */
export type Verb = 'refuse' | 'remove' | 'suspend' | 'dismiss';

export function question(verb: Verb, item: ModerationItem): string {
  if (verb === 'refuse') return `Refuse ${describeItem(item)}?`;
  const report = item as ReportItem;
  const author = report.target.user ? visibleLine(report.target.user.nickname) : 'the author';
  const count = report.reports === 1 ? 'the report' : `the ${report.reports} reports`;
  if (verb === 'remove') return `Remove ${reportedThing(report)}?`;
  // Without the place: the question has to fit one line with its (y/N).
  if (verb === 'dismiss') return `Dismiss ${count} on ${reportedThing(report, undefined, false)}?`;
  // Suspending someone suspended replaces their suspension, as `users suspend` does: the question names the one in force.
  const now = suspensionNow(report);
  return now ? `${author} is suspended ${suspensionEnd(now.until)} ("${visibleLine(now.reason)}"): replace it?` : `Suspend ${author}?`;
}

export function outcome(verb: Verb | 'accept', item: ModerationItem): string {
  if (verb === 'accept') return `accepted ${describeItem(item)}`;
  if (verb === 'refuse') return `refused ${describeItem(item)}`;
  const report = item as ReportItem;
  if (verb === 'remove') return `removed ${reportedThing(report)}`;
  if (verb === 'dismiss') return `dismissed ${report.reports === 1 ? 'the report' : `the ${report.reports} reports`} on ${reportedThing(report)}`;
  const who = report.target.user ? visibleLine(report.target.user.nickname) : 'the author';
  const was = suspensionNow(report);
  const replaced = was ? ` (replacing the suspension ${suspensionEnd(was.until)})` : '';
  // A suspension hides the content while it lasts; it does not take it down.
  return report.target.type === 'User' ? `suspended ${who}${replaced}` : `suspended ${who}${replaced}; the ${report.target.type === 'Status' ? 'status' : 'comment'} stays, hidden while the suspension lasts`;
}

/** The reason a suspension from the queue gives when the moderator types none. */
export const defaultSuspensionReason = (item: ReportItem) => reportedFor(item.reason);
