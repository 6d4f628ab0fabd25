import { Box, Text } from 'ink';
import { createElement as h, type ReactNode } from 'react';
import type { ModerationItem, ReportItem } from '../../shared/schemas/moderation.js';
import { itemDetails, type GroupState } from './details.js';
import { columns, truncate as fit } from '../table.js';
import { defaultSuspensionReason, isReport, kindLabel, question, rowCells, suspensionNow, waited, type Verb } from './items.js';

export type Mode = 'list' | 'confirm' | 'reason' | 'details';
export interface Message {
  text: string;
  tone: 'ok' | 'bad' | 'plain';
}

/** What the queue screen shows: its state, drawn (screen.ts keeps the state and takes the keys). */
export interface QueueView {
  items: ModerationItem[];
  total: number;
  index: number;
  selected: ModerationItem | undefined;
  mode: Mode;
  /** The question open: the verb, and the item as it was when its key was pressed. */
  pending: { verb: Verb; item: ModerationItem } | undefined;
  /** A suspension's reason, as typed so far. */
  reason: string;
  message: Message;
  live: boolean;
  current: boolean;
  maySuspend: boolean;
  group: GroupState | undefined;
  size: { columns: number; rows: number };
  color: boolean;
}

/** The title, the list (or the selected item's details) and the footer: the message, then the keys or the question. */
export function queueView({ items, total, index, selected, mode, pending, reason, message, live, current, maySuspend, group, size, color: c }: QueueView): ReactNode {
  const width = Math.max(20, size.columns);
  const height = Math.max(8, size.rows);
  const title = h(
    Box,
    { width, justifyContent: 'space-between' },
    h(Text, { bold: true, color: c ? 'cyan' : undefined, wrap: 'truncate-end' }, `agora queue · ${total} waiting${items.length < total ? ` (the oldest ${items.length} shown)` : ''}`),
    h(Text, { color: c ? (live && current ? 'green' : 'yellow') : undefined }, !live ? '○ offline' : current ? '● live' : '○ not current'),
  );
  const reportSelected = selected !== undefined && isReport(selected);
  // Only the keys that can act on the selected item: a user reported cannot be removed.
  const removable = reportSelected && selected.target.type !== 'User';
  const keysOf = reportSelected
    ? `${removable ? 'd remove  ' : ''}${maySuspend ? 's suspend  ' : ''}x dismiss`
    : `${selected && suspensionNow(selected) ? '' : 'a accept  '}r refuse`;
  const help =
    mode === 'confirm' && pending
      ? `${fit(question(pending.verb, pending.item), width - 6)} (y/N)`
      : mode === 'reason' && pending
        ? reasonLine(defaultSuspensionReason(pending.item as ReportItem), reason, width)
        : mode === 'details'
          ? `⏎/esc back  ${keysOf}  q quit`
          : `↑↓ move  ${keysOf}  ⏎ details  q quit`;
  const asking = mode === 'confirm' || mode === 'reason';
  // A question too long for the line is cut before its (y/N), not after; a suspension's stands above its reason, so
  // that what is typed is never hidden by it.
  const said = mode === 'reason' && pending ? { text: question('suspend', pending.item), tone: 'plain' as const } : message;
  // Cut here, not by ink: its cut keeps a wide character (CJK, emoji) straddling the edge, and the line wraps.
  const footer = [
    h(Text, { key: 'msg', wrap: 'truncate-end', color: c ? (said.tone === 'ok' ? 'green' : said.tone === 'bad' ? 'red' : undefined) : undefined }, fit(said.text || ' ', width)),
    h(Text, { key: 'help', wrap: 'truncate-end', bold: asking, color: c && asking ? 'yellow' : undefined, dimColor: c && !asking }, fit(help, width)),
  ];
  const bodyRows = height - 5;
  let body: ReactNode;
  if (mode === 'details' && selected) {
    // Cut at its height, not drawn over the footer (a small window, long texts).
    body = h(Box, { flexDirection: 'column', height: bodyRows + 1, overflow: 'hidden' }, ...itemDetails(selected, group, width));
  } else {
    // As wide as the widest label shown (`report ×12`): how many reported a target is what a busy queue is read by.
    const kindWidth = Math.max(9, ...items.map((item) => kindLabel(item).length));
    const agoWidth = 5;
    const rest = width - 2 - kindWidth - agoWidth - 3;
    // The page as wide as the longest name shown needs (up to 45 %), the rest for what is reported.
    const longestPage = Math.max(4, ...items.map((item) => [...rowCells(item)[0]].length));
    const pageWidth = Math.min(longestPage, Math.ceil(rest * 0.45));
    const whoWidth = rest - pageWidth;
    // Each cell cut a column short of its box: that column parts it from the next, a name cut with `…` included.
    const row = (key: string, marker: string, cells: [string, string, string, string], style: { bold?: boolean; color?: string; dimColor?: boolean; inverse?: boolean }) =>
      h(
        Box,
        { key, width },
        h(Box, { width: 2, flexShrink: 0 }, h(Text, style, marker)),
        h(Box, { width: kindWidth + 1, flexShrink: 0 }, h(Text, { ...style, wrap: 'truncate-end' }, fit(cells[0], kindWidth))),
        h(Box, { width: pageWidth + 1, flexShrink: 0 }, h(Text, { ...style, wrap: 'truncate-end' }, fit(cells[1], pageWidth))),
        h(Box, { width: whoWidth + 1, flexShrink: 0 }, h(Text, { ...style, wrap: 'truncate-end' }, fit(cells[2], whoWidth))),
        h(Box, { width: agoWidth, flexShrink: 0, justifyContent: 'flex-end' }, h(Text, style, cells[3])),
      );
    const first = Math.max(0, Math.min(index - bodyRows + 1, items.length - bodyRows));
    const shown = items.slice(Math.max(0, first), Math.max(0, first) + bodyRows);
    body = h(
      Box,
      { flexDirection: 'column', height: bodyRows + 1 },
      row('head', ' ', ['KIND', 'PAGE', 'WHO', 'WAIT'], { bold: true, dimColor: c }),
      ...(items.length === 0 && message.text !== 'loading…'
        ? [
            h(
              Box,
              { key: 'empty', paddingLeft: 2 },
              h(Text, { wrap: 'wrap' }, 'Nothing waiting. Requests to join and invites of the pages you administer, and the reports you may settle, appear here as they come.'),
            ),
          ]
        : shown.map((item) =>
            row(
              item.id,
              item.id === selected?.id ? '›' : ' ',
              [kindLabel(item), ...rowCells(item), waited(item.created_at)],
              item.id === selected?.id ? { bold: true, color: c ? 'cyan' : undefined } : {},
            ),
          )),
    );
  }
  return h(Box, { flexDirection: 'column', width, height: height - 1 }, title, body, ...footer);
}

/**
 * The line a suspension's reason is typed on (its question stands on the line above), at most `width` columns, with the
 * end of what is typed and the cursor always in sight: too long, it loses the keys' hint, then the start of what is
 * typed (keeping half the line), then the default reason's end; on a narrow terminal, the default too.
 */
export function reasonLine(byDefault: string, typed: string, width: number): string {
  const line = (d: string, t: string, keys = '█') => `reason [${d}]: ${t}${keys}`;
  for (const whole of [line(byDefault, typed, '█  ⏎ suspend  esc cancel'), line(byDefault, typed)]) {
    if (columns(whole) <= width) return whole;
  }
  if (width < 40) return fit(`reason: ${fit(typed, width - 9, 'end')}█`, width);
  const kept = Math.min(columns(typed), Math.floor(width / 2));
  const reason = fit(byDefault, Math.max(6, width - columns(line('', '')) - kept));
  return line(reason, fit(typed, width - columns(line(reason, '')), 'end'));
}
