import type { Listing } from './list-walk.js';
import type { Names, NameKind } from './names.js';

export type { Listing } from './list-walk.js';
import { terminalJson, visible, visibleLine } from './safe-text.js';

export interface Column<T> {
  header: string;
  value?: (row: T) => unknown;
  /** The cell is the name of the record this id points to (a user's nickname, a page's name), else the id. */
  name?: [NameKind, (row: T) => string | null | undefined];
  /**
   * An id: shortened to a unique prefix in a table that would not fit otherwise; `whole` for ids the CLI takes only
   * whole (comments), kept as they are.
   */
  id?: boolean | 'whole';
  /**
   * The least width the cell keeps (else `NAME_ROOM`) before the columns after it are left out of a narrow table; of
   * an outlasting column, also the width it keeps while the others are cut.
   */
  room?: number;
  /**
   * Kept in a narrow table while the columns after the first two that do not are left out, when any of its cells says
   * something (a status author's suspension, to a moderator, before the counts and the time); not the words (a column
   * with `room`), which outlast it.
   */
  outlasts?: true;
}

/** A page of a list, or the whole of it (`--all`, `--limit`). */
export interface ListView {
  page?: number;
  perPage?: number;
  fields?: string[];
  header?: boolean;
}

export interface OutputOptions {
  json: boolean;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
  env?: NodeJS.ProcessEnv;
  names?: NameSource;
}

/** Where a table's names come from: the API (`Names`), or the store itself for an offline `admin` command. */
export type NameSource = Pick<Names, 'load' | 'get'>;

/** How a record's fields are shown: the names shown beside ids, and formats for fields that are not text. */
export interface RecordView<T> {
  /** `user_id: ['owner', 'user']` adds a row `owner  <nickname>` after `user_id`. */
  names?: Partial<Record<keyof T & string, [string, NameKind]>>;
  /** A field's text, from its value (and the record, when another field says what it means). */
  format?: Partial<Record<keyof T & string, (value: never, record: T) => unknown>>;
  /** Fields left out of the view (they are in `--json`). */
  omit?: (keyof T & string)[];
}

/** Whether a stream gets colours: a terminal, not a dumb one, and no NO_COLOR (the tables, the spinner). */
export const coloursFor = (stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean =>
  !!stream.isTTY && !env.NO_COLOR && env.TERM !== 'dumb';

/**
 * The three faces of the README's "Commands": a table on a TTY; the API's JSON exactly with --json; plain
 * tab-separated rows (no colour) when stdout is not a TTY. Every string from the server passes through
 * `visible` on its way to a table, a TSV row, a record, a note or a confirmation, and JSON for a terminal
 * through `terminalJson`: no control character reaches the terminal. This is the only place output is written.
 */
export class Output {
  readonly json: boolean;
  readonly tty: boolean;
  readonly color: boolean;
  private readonly stdout: NodeJS.WriteStream;
  private readonly stderr: NodeJS.WriteStream;
  private readonly env: NodeJS.ProcessEnv;
  private readonly names?: NameSource;
  /** Records printed one line a field so far (a blank line goes between two). */
  private fieldLinesShown = 0;

  constructor(options: OutputOptions) {
    this.env = options.env ?? process.env;
    this.stdout = options.stdout ?? process.stdout;
    this.stderr = options.stderr ?? process.stderr;
    this.json = options.json;
    this.names = options.names;
    this.tty = !!this.stdout.isTTY;
    ignoreClosedPipe(this.stdout);
    this.color = coloursFor(this.stdout, this.env);
  }

  /** The terminal's width (COLUMNS when the terminal does not say). */
  get width(): number {
    return this.stdout.columns || Number(this.env.COLUMNS) || 80;
  }

  async list<T>(result: Listing<T>, columns: Column<T>[], view: ListView = {}): Promise<void> {
    if (this.json) return this.printJson({ items: await pickFields(result.items, view.fields), total_items: result.total_items });
    const chosen = await chooseColumns(columns, view.fields, result.items);
    const cells = await this.cells(result.items, chosen);
    const shown = result.items.length;
    const first = result.first ?? (view.page && view.perPage ? (view.page - 1) * view.perPage + 1 : 1);
    if (!this.tty) {
      if (view.header) this.line(chosen.map((c) => visibleLine(c.header)).join('\t'));
      for (const row of cells) this.line(row.join('\t'));
      if (shown < result.total_items && !result.limited)
        this.note(
          `${first === 1 ? shown : `${first}–${first + shown - 1}`} of ${result.total_items} shown; --all for every one`,
        );
      return;
    }
    if (shown === 0) {
      this.line(`No items (${result.total_items} in all).`);
      return;
    }
    await loadTables();
    const { table, left } = this.renderTable(chosen, cells);
    this.line(table);
    if (left.length > 0)
      for (const line of wrapWords(`(${left.join(', ')} left out for the terminal's width; --fields picks the columns)`, this.width)) this.line(this.dim(line));
    const pages = view.perPage ? Math.max(1, Math.ceil(result.total_items / view.perPage)) : 1;
    const more = result.walked
      ? shown < result.total_items
        ? ' (--all for every one)'
        : ''
      : pages > 1
        ? ` (page ${view.page} of ${pages}; --page for more, --all for every one)`
        : '';
    this.line(this.dim(`${first}–${first + shown - 1} of ${result.total_items}${more}`));
  }

  /** One row as it arrives (a live feed): a TSV row when piped, the cells spaced out on a terminal. */
  row<T>(item: T, columns: Column<T>[]): void {
    if (this.json) return this.jsonLine(JSON.stringify(item));
    const cells = columns.map((c) => visibleLine(text(c.value?.(item))));
    this.line(this.tty ? cells.map((cell, i) => (i === 0 ? this.dim(cell) : cell)).join('  ') : cells.join('\t'));
  }

  /**
   * One record, the same view wherever it comes from (create, get, a transition): its fields in the API's
   * order, names beside the ids they stand for, nested records by their name.
   */
  async record<T extends object>(record: T, view: RecordView<T> = {}): Promise<void> {
    if (this.json) return this.printJson(record);
    const rows: [string, string][] = [];
    const entries = Object.entries(record).filter(([k]) => !view.omit?.includes(k as keyof T & string));
    const named = Object.entries(view.names ?? {}) as [string, [string, NameKind]][];
    await Promise.all(named.map(([field, [, kind]]) => this.names?.load(kind, [(record as Record<string, unknown>)[field] as string])));
    for (const [key, value] of entries) {
      const format = (view.format as Record<string, (v: unknown, r: T) => unknown> | undefined)?.[key];
      rows.push([key, visibleLine(format ? text(format(value, record)) : cellText(value))]);
      const name = (view.names as Record<string, [string, NameKind]> | undefined)?.[key];
      if (name && typeof value === 'string') rows.push([name[0], visibleLine(this.names?.get(name[1], value) ?? '')]);
    }
    // Piped, or a token (a key's secret, shown once) that a table would break across its lines: one line a field.
    const keyWidth = Math.max(...rows.map(([k]) => k.length));
    const room = this.width - keyWidth - 7;
    if (!this.tty || rows.some(([, v]) => v.length > room && !/\s/.test(v))) {
      // Several records in one run (`accept ID1 ID2`, piped): a blank line between them, as `git log` separates its.
      if (this.fieldLinesShown++ > 0) this.line('');
      for (const [k, v] of rows) this.line(this.tty ? `${this.bold(k.padEnd(keyWidth))}  ${v}` : `${k}\t${v}`);
      return;
    }
    await loadTables();
    this.line(
      renderTableLazy({
        rows: rows.map(([k, v]) => [k, v === '' ? '-' : v]),
        width: this.width,
        wrap: [false, true],
        paint: { head: (s) => s, border: this.grey, first: this.bold },
      }),
    );
  }

  printJson(data: unknown): void {
    this.jsonLine(JSON.stringify(data, null, this.tty ? 2 : undefined));
  }

  /** JSON as the API sent it, but on a terminal with its control characters escaped (docs/security.md). */
  private jsonLine(json: string): void {
    this.line(this.tty ? terminalJson(json) : json);
  }

  /**
   * A confirmation for people; with `--json`, `result` (what the API answered, or for an answer without a body the
   * record's id and what became of it), so that a script reads each success as it reads each refusal.
   */
  done(message: string, result?: unknown): void {
    if (this.json) {
      if (result !== undefined) this.printJson(result);
      return;
    }
    this.line(this.tty ? this.green(visible(message)) : visible(message));
  }

  /** Diagnostics, always on stderr. */
  note(message: string): void {
    this.stderr.write(`${visible(message)}\n`);
  }

  line(text: string): void {
    this.stdout.write(`${text}\n`);
  }

  private async cells<T>(items: T[], columns: Column<T>[]): Promise<string[][]> {
    await Promise.all(
      columns.filter((c) => c.name).map((c) => this.names?.load(c.name![0], items.map((row) => c.name![1](row)))),
    );
    return items.map((row) =>
      columns.map((c) => {
        if (c.name) {
          const id = c.name[1](row);
          return visibleLine(id ? (this.names?.get(c.name[0], id) ?? id) : text(c.value?.(row)));
        }
        return visibleLine(text(c.value?.(row)));
      }),
    );
  }

  /**
   * A table no wider than the terminal: times cut to the minute (a suspension's end at midnight to its day) and ids
   * to their shortest unique prefix (accepted back by every command) first, neither cut further; then the last
   * columns left out while the rest cannot keep `NAME_ROOM`; then the widest other cells cut.
   */
  private renderTable<T>(columns: Column<T>[], cells: string[][]): { table: string; left: string[] } {
    const head = columns.map((c) => c.header);
    const shape = { width: this.width, paint: { head: this.cyan, border: this.grey } };
    let rows = cells.map((r) => r.map((c) => (c === '' ? '-' : c)));
    if (tableModule!.naturalWidth(head, rows) <= this.width) return { table: renderTableLazy({ ...shape, head, rows }), left: [] };
    const { uniquePrefixes, columnsThatFit } = tableModule!;
    // A time to the minute (2026-11-26 19:05Z) leaves 8 columns of 24 to the text beside it; cut further it would
    // say neither the day nor the hour, so a column of times is firm, as one of ids is: the text beside it gives way.
    const times = columns.map((_, i) => rows.some((r) => ISO_TIME.test(r[i]!)) && rows.every((r) => r[i] === '-' || ISO_TIME.test(r[i]!)));
    rows = rows.map((r) => r.map((cell) => (ISO_TIME.test(cell) ? toMinute(cell) : UNTIL.test(cell) ? `until ${toMinute(cell.slice(6), true)}` : cell)));
    // Ids as long as the terminal allows, from whole down to their shortest prefix unique among the rows shown: the
    // longer, the likelier a prefix is unique among all the records it is looked up in when given back.
    const shortest = columns.map((c, i) => (c.id === true ? (uniquePrefixes(rows.map((r) => r[i]!))[0]?.length ?? 0) : undefined));
    const cutTo = (length: number) =>
      rows.map((r) => r.map((cell, j) => (shortest[j] === undefined || cell === '-' ? cell : cell.slice(0, Math.max(length, shortest[j]!)))));
    let length = 32;
    while (length > 0 && tableModule!.naturalWidth(head, cutTo(length)) > this.width) length--;
    rows = cutTo(length);
    const firm = columns.map((c, i) => !!c.id || times[i]!);
    const outlasting = columns.map((c, i) => !!c.outlasts && rows.some((r) => r[i] !== '-'));
    const kept = columnsThatFit(head, rows, this.width, firm, columns.map((c) => c.room), outlasting);
    const pick = <V>(values: V[]) => kept.map((i) => values[i]!);
    const keep = columns.map((c, i) => (outlasting[i] ? c.room : undefined));
    const table = renderTableLazy({ ...shape, head: pick(head), rows: rows.map(pick), firm: pick(firm), keep: pick(keep) });
    return { table, left: head.filter((_, i) => !kept.includes(i)) };
  }

  private paint = (code: number, text: string) => (this.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  bold = (text: string) => this.paint(1, text);
  dim = (text: string) => this.paint(2, text);
  green = (text: string) => this.paint(32, text);
  red = (text: string) => this.paint(31, text);
  cyan = (text: string) => this.paint(36, text);
  grey = (text: string) => this.paint(90, text);
}

/** A time as the API writes it (UTC, milliseconds). */
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
/** A suspension's end as the CLI says it (`suspensionEnd`), to a time. */
const UNTIL = /^until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
/** A time cut to the minute (`2026-11-26 19:05Z`); an end at midnight UTC, as `--until DATE` gives, to its day. */
const toMinute = (time: string, end = false) =>
  end && /T00:00:00(\.0+)?Z$/.test(time) ? time.slice(0, 10) : `${time.slice(0, 10)} ${time.slice(11, 16)}Z`;

type TableModule = typeof import('./table.js');
let tableModule: TableModule | undefined;

/** Lines of at most `width` characters, broken between words (a word longer than a line stays whole). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

/** Output is built for every command; the table code (and string-width) loads with the first table. */
export async function loadTables(): Promise<void> {
  tableModule ??= await import('./table.js');
}
function renderTableLazy(input: Parameters<TableModule['renderTable']>[0]): string {
  return tableModule!.renderTable(input);
}

/** `--fields a,b`: columns by header (any case; `_`, `-` or a space alike), else top-level fields of the records. */
async function chooseColumns<T>(columns: Column<T>[], fields: string[] | undefined, items: T[]): Promise<Column<T>[]> {
  if (!fields || fields.length === 0) return columns;
  const key = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, '_');
  const sample = items[0] as Record<string, unknown> | undefined;
  const unknown: string[] = [];
  const chosen = fields.map((field) => {
    const column = columns.find((c) => key(c.header) === key(field));
    if (column) return column;
    if (sample && Object.hasOwn(sample, field)) return { header: field, value: (row: T) => (row as Record<string, unknown>)[field] } as Column<T>;
    unknown.push(field);
    return undefined;
  });
  if (unknown.length > 0) {
    const { UsageError } = await import('./errors.js');
    throw new UsageError(
      `--fields: no column ${unknown.map((f) => `"${f}"`).join(', ')}; columns are ${columns.map((c) => key(c.header)).join(', ')}` +
        (sample ? `, and the record's fields ${Object.keys(sample).join(', ')}` : ''),
    );
  }
  return chosen as Column<T>[];
}

/**
 * `--json --fields id,name`: each record with only those fields, in that order (as gh's `--json id,name`); the
 * names are the records' own fields, matched as `--fields` matches columns.
 */
async function pickFields<T>(items: T[], fields: string[] | undefined): Promise<unknown[]> {
  if (!fields || fields.length === 0 || items.length === 0) return items;
  const key = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, '_');
  const present = [...new Set(items.flatMap((item) => Object.keys(item as object)))];
  const named = fields.map((field) => present.find((name) => key(name) === key(field)));
  const unknown = fields.filter((_, i) => named[i] === undefined);
  if (unknown.length > 0) {
    const { UsageError } = await import('./errors.js');
    throw new UsageError(`--fields: no field ${unknown.map((f) => `"${f}"`).join(', ')}; the records' fields are ${present.join(', ')}`);
  }
  return items.map((item) => Object.fromEntries(named.map((name) => [name!, (item as Record<string, unknown>)[name!] ?? null])));
}

const guarded = new WeakSet<NodeJS.WriteStream>();

/**
 * `agora users list | head -1`: the reader leaves early and the next write fails with EPIPE. That is the
 * reader's choice, not an error to report with a stack trace; the remaining output is simply dropped.
 */
export function ignoreClosedPipe(stream: NodeJS.WriteStream): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

const text = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
};

/** A nested value in a record view: a record by its name, a list of words joined. */
function cellText(value: unknown): string {
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null)) return value.join(', ');
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    if (typeof v.nickname === 'string') return v.nickname;
    if (typeof v.name === 'string') return v.name;
  }
  return text(value);
}
