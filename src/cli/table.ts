import Table from 'cli-table3';
import stringWidth from 'string-width';

export interface TableInput {
  head?: string[];
  rows: string[][];
  /** The terminal's width: the table is never wider. */
  width: number;
  /** Per column: wrap long cells over several lines instead of cutting them with `…`. */
  wrap?: boolean[];
  /** Per column: keep the whole width while other columns can still give way (ids shortened to a unique prefix). */
  firm?: boolean[];
  /** Per column: the width it keeps while the others give way down to their headers' (an outlasting column's `room`). */
  keep?: (number | undefined)[];
  paint?: { head: (s: string) => string; border: (s: string) => string; first?: (s: string) => string };
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/**
 * The columns a character takes, never fewer than a terminal gives it: string-width 4 (cli-table3's) counts emoji
 * newer than it as one column, where terminals and ink's newer string-width give them two.
 */
const columnsOf = (ch: string): number => Math.max(stringWidth(ch), /\p{Extended_Pictographic}/u.test(ch) ? 2 : 0);

/**
 * Cuts `text` to at most `width` columns, ending with `…` when it was longer (or, keeping its end, starting with one);
 * by whole characters (a flag, a joined or toned emoji is never split), each as wide as it may be: a line cut here is
 * never cut again by the table or ink.
 */
export function truncate(text: string, width: number, keep: 'start' | 'end' = 'start'): string {
  const all = [...graphemes.segment(text)].map(({ segment }) => ({ segment, w: columnsOf(segment) }));
  if (all.reduce((n, ch) => n + ch.w, 0) <= width) return text;
  if (width <= 0) return '';
  const kept: string[] = [];
  let used = 0;
  for (const { segment, w } of keep === 'start' ? all : all.reverse()) {
    if (used + w > width - 1) break;
    kept.push(segment);
    used += w;
  }
  return keep === 'start' ? `${kept.join('')}…` : `…${kept.reverse().join('')}`;
}

/** The columns `text` takes on a terminal, counted as `truncate` counts them. */
export const columns = (text: string): number => [...graphemes.segment(text)].reduce((n, { segment }) => n + columnsOf(segment), 0);

/** Splits `text` into lines of at most `width` columns (at spaces when it can). */
function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let rest = text;
  while (stringWidth(rest) > width) {
    let cut = '';
    let used = 0;
    for (const ch of rest) {
      const w = stringWidth(ch);
      if (used + w > width) break;
      cut += ch;
      used += w;
    }
    const space = cut.lastIndexOf(' ');
    if (space > width / 2) cut = cut.slice(0, space + 1);
    if (cut.length === 0) cut = [...rest][0]!;
    lines.push(cut.trimEnd());
    rest = rest.slice(cut.length);
  }
  lines.push(rest);
  return lines;
}

/**
 * Column widths that fit `available`: the widest columns give way first, down to the header's width (or 4),
 * then below that when even those do not fit.
 */
export function fitWidths(natural: number[], minimum: number[], available: number, firm: boolean[] = []): number[] {
  const widths = [...natural];
  const total = () => widths.reduce((a, b) => a + b, 0);
  // A firm column (a unique id prefix) never gives way: cut, it would no longer name one record.
  const last = widths.map((_, i) => (firm[i] ? natural[i]! : 1));
  for (const floor of [minimum, minimum.map((m, i) => (m === natural[i] ? m : last[i]!)), last]) {
    while (total() > available) {
      let widest = -1;
      for (let i = 0; i < widths.length; i++)
        if (widths[i]! > floor[i]! && (widest === -1 || widths[i]! > widths[widest]!)) widest = i;
      if (widest === -1) break;
      widths[widest]!--;
    }
  }
  return widths;
}

/**
 * A cell without zero-width joiners: terminals disagree on whether 👨‍👩‍👧 is one glyph two columns wide or three
 * emoji six columns wide (tmux and many others), and a border placed for one is out of line on the other.
 * Unjoined, it is three emoji everywhere, and measured so. Only tables do this; `--json` keeps the text.
 */
export const unjoined = (cell: string): string => cell.replace(/\u200d/g, '');

/** How wide the table would be with no cell cut. */
export function naturalWidth(head: string[], rows: string[][]): number {
  const widths = head.map((h, i) => Math.max(1, stringWidth(h), ...rows.map((r) => stringWidth(unjoined(r[i] ?? '')))));
  return widths.reduce((a, b) => a + b, 0) + 3 * head.length + 1;
}

/**
 * A boxed table with one rule under the header and none between rows, no wider than `width`. Widths are
 * fitted here (cli-table3 would wrap or overflow); cli-table3 draws it, and the rule under the header is its
 * top border with the joints turned.
 */
export function renderTable({ head, rows: given, width, wrap = [], firm = [], keep = [], paint }: TableInput): string {
  const rows = given.map((row) => row.map(unjoined));
  const columns = head?.length ?? rows[0]?.length ?? 0;
  const natural = Array.from({ length: columns }, (_, i) =>
    Math.max(1, stringWidth(head?.[i] ?? ''), ...rows.map((r) => stringWidth(r[i] ?? ''))),
  );
  const minimum = natural.map((n, i) => (firm[i] ? n : Math.min(n, keep[i] ?? Math.max(4, stringWidth(head?.[i] ?? '')))));
  const widths = fitWidths(natural, minimum, Math.max(columns, width - (3 * columns + 1)), firm);
  const paintLines = (text: string, style: (s: string) => string) => text.split('\n').map(style).join('\n');
  const table = new Table({
    ...(head ? { head: head.map((h, i) => (paint ? paint.head(truncate(h, widths[i]!)) : truncate(h, widths[i]!))) } : {}),
    colWidths: widths.map((w) => w + 2),
    wordWrap: false,
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    style: { head: [], border: [], 'padding-left': 1, 'padding-right': 1 },
  });
  for (const row of rows)
    table.push(
      row.map((cell, i) => {
        const fitted = wrap[i] ? wrapText(cell, widths[i]!).join('\n') : truncate(cell, widths[i]!);
        return i === 0 && paint?.first ? paintLines(fitted, paint.first) : fitted;
      }),
    );
  const lines = table.toString().split('\n');
  if (head) lines.splice(2, 0, lines[0]!.replace('┌', '├').replace(/┬/g, '┼').replace('┐', '┤'));
  const border = paint?.border;
  return lines.map((l) => (border ? l.replace(/[┌┬┐├┼┤└┴┘│─]+/g, (m) => border(m)) : l)).join('\n');
}

/** The narrowest a column other than an id is cut to before columns are left out: a name keeps this much. */
export const NAME_ROOM = 10;

/**
 * The columns to show at `width`: every one when each fits at its floor (an id column whole, any other at its
 * `room`, else `NAME_ROOM`), else the last ones left out, one by one, keeping the first two; an `outlasting` column
 * is left out only when every other after the first two is, but those with a `room` (the words): they go after it.
 */
export function columnsThatFit(
  head: string[],
  rows: string[][],
  width: number,
  firm: boolean[],
  room: (number | undefined)[] = [],
  outlasting: boolean[] = [],
): number[] {
  const floor = head.map((h, i) => {
    const natural = Math.max(1, stringWidth(h), ...rows.map((r) => stringWidth(r[i] ?? '')));
    return firm[i] ? natural : Math.min(natural, room[i] ?? NAME_ROOM);
  });
  const kept = head.map((_, i) => i);
  const needed = () => kept.reduce((sum, i) => sum + floor[i]! + 3, 1);
  while (kept.length > 2 && needed() > width) {
    // The words (a column with `room`) outlast an outlasting column: a moderator's list without them says nothing.
    const outlasts = kept.some((i) => outlasting[i]);
    const last = kept.findLastIndex((i, at) => at >= 2 && !outlasting[i] && !(outlasts && room[i] !== undefined));
    kept.splice(last === -1 ? kept.length - 1 : last, 1);
  }
  return kept;
}

/**
 * The ids cut to the shortest common length (at least `min` characters) at which no two of them share a prefix.
 * At least 16: an id is its millisecond (12 characters), then a sequence that tells apart the ids one process makes
 * in the same millisecond (4), then random bits. A shorter prefix, unique among the rows shown, is often shared by
 * records made in the same second (a demo seeded, an import, a fan-out's notifications): given back, it would name
 * several, and every id printed must be accepted back.
 */
export function uniquePrefixes(ids: string[], min = 16): string[] {
  const sorted = [...new Set(ids)].sort();
  const length = new Map<string, number>();
  sorted.forEach((id, i) => {
    let n = Math.min(min, id.length);
    for (const other of [sorted[i - 1], sorted[i + 1]]) {
      if (other === undefined) continue;
      let common = 0;
      while (common < id.length && id[common] === other[common]) common++;
      n = Math.max(n, Math.min(id.length, common + 1));
    }
    length.set(id, n);
  });
  // One length for the whole column: ids of different lengths side by side read as different kinds of thing.
  const longest = Math.max(0, ...length.values());
  return ids.map((id) => id.slice(0, Math.min(id.length, longest)));
}
