import { Box, Text } from 'ink';
import { createElement as h, type ReactNode } from 'react';
import type { ModerationItem, ReportItem } from '../../shared/schemas/moderation.js';
import { isReport, suspensionNow, waited } from './items.js';
import { suspensionEnd } from '../suspensions.js';
import { visibleLine } from '../safe-text.js';

/** One report of a target as the details show it: who reported it, why, and what they added. */
export interface GroupReport {
  id: string;
  reporter: string;
  reason: string;
  comment: string | null;
  created_at: string;
}

/** The reports of the target shown in the details: loading, loaded, or why they could not be read. */
export type GroupState = { itemId: string; reports?: GroupReport[]; error?: string } | undefined;

// As wide as the longest label (`suspended`) and two spaces: one would read as part of the value.
const LABEL = 11;

// Every line keeps its height (flexShrink 0): details taller than the screen are cut at the bottom by the box holding
// them, where ink would otherwise squeeze the lines onto each other (`idnd`, `kind` under `id`; every other reporter).
const field = (label: string, value: string, wrap: 'truncate-end' | 'wrap' = 'truncate-end') =>
  h(Box, { key: label, flexShrink: 0 }, h(Box, { width: LABEL, flexShrink: 0 }, h(Text, { bold: true }, label)), h(Text, { wrap }, value));

/** Until when, and why, the item's user is suspended (a request or invite of theirs cannot be accepted meanwhile). */
function suspendedField(item: ModerationItem): ReactNode[] {
  const suspension = suspensionNow(item);
  return suspension ? [field('suspended', `${suspensionEnd(suspension.until)}: ${visibleLine(suspension.reason)}`, 'wrap')] : [];
}

function membershipDetails(item: Exclude<ModerationItem, ReportItem>): ReactNode[] {
  return [
    field('kind', item.kind === 'invite' ? 'invite' : 'access request'),
    field('id', item.id),
    field('page', `${visibleLine(item.page.name)} (${item.page.privacy})`),
    field('who', `${visibleLine(item.user.name)} (${visibleLine(item.user.nickname)})`),
    ...suspendedField(item),
    ...(item.user.email ? [field('email', visibleLine(item.user.email))] : []),
    field('waiting', `since ${item.created_at} (${waited(item.created_at)})`),
  ];
}

/** A report's details: the content's excerpt in full (at most 280 characters), and every open report on it. */
function reportDetails(item: ReportItem, group: GroupState, width: number): ReactNode[] {
  const author = item.target.user ? `${visibleLine(item.target.user.name)} (${visibleLine(item.target.user.nickname)})` : 'no longer there';
  const about = item.target.type === 'User' ? `the user ${author}` : `a ${item.target.type === 'Comment' ? 'comment' : 'status'} by ${author}`;
  const loaded = group?.itemId === item.id ? group : undefined;
  const lines: ReactNode[] = [
    field('kind', `report (${item.reports} open)`),
    field('id', item.id),
    field('about', about),
    ...suspendedField(item),
    ...(item.page ? [field('page', `${visibleLine(item.page.name)} (${item.page.privacy})`)] : []),
    ...(item.target.excerpt !== null ? [field('text', visibleLine(item.target.excerpt), 'wrap')] : []),
    field('waiting', `since ${item.created_at} (${waited(item.created_at)})`),
    field('reports', loaded?.error ? `could not be read: ${loaded.error}` : loaded?.reports ? '' : 'loading…'),
  ];
  for (const report of loaded?.reports ?? []) {
    const said = report.comment ? `: ${visibleLine(report.comment)}` : '';
    lines.push(
      h(
        Box,
        { key: report.id, width, flexShrink: 0 },
        h(Text, { wrap: 'wrap' }, `  ${visibleLine(report.reporter)} · ${report.reason} · ${waited(report.created_at)}${said}`),
      ),
    );
  }
  return lines;
}

export function itemDetails(item: ModerationItem, group: GroupState, width: number): ReactNode[] {
  return isReport(item) ? reportDetails(item, group, width) : membershipDetails(item as Exclude<ModerationItem, ReportItem>);
}
