import type { ListResult } from '../shared/schemas/common.js';

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

export interface OutputOptions {
  json: boolean;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
  env?: NodeJS.ProcessEnv;
}

/**
 * The three faces of CONTRACT §6: a table on a TTY; the API's JSON exactly with --json; plain
 * tab-separated rows (no header, no colour) when stdout is not a TTY.
 */
export class Output {
  readonly json: boolean;
  readonly tty: boolean;
  readonly color: boolean;
  private readonly stdout: NodeJS.WriteStream;
  private readonly stderr: NodeJS.WriteStream;

  constructor(options: OutputOptions) {
    const env = options.env ?? process.env;
    this.stdout = options.stdout ?? process.stdout;
    this.stderr = options.stderr ?? process.stderr;
    this.json = options.json;
    this.tty = !!this.stdout.isTTY;
    ignoreClosedPipe(this.stdout);
    this.color = this.tty && !env.NO_COLOR && env.TERM !== 'dumb';
  }

  async list<T>(result: ListResult<T>, columns: Column<T>[], page?: { page: number; per_page: number }): Promise<void> {
    if (this.json) return this.printJson(result);
    if (!this.tty) {
      for (const row of result.items) this.line(columns.map((c) => tsvCell(c.value(row))).join('\t'));
      return;
    }
    if (result.items.length === 0) {
      this.line(`No items (${result.total_items} in all).`);
      return;
    }
    const table = await this.table(columns.map((c) => c.header));
    for (const row of result.items) table.push(columns.map((c) => tableCell(c.value(row))));
    this.line(table.toString());
    const first = page ? (page.page - 1) * page.per_page + 1 : 1;
    const pages = page ? Math.max(1, Math.ceil(result.total_items / page.per_page)) : 1;
    this.line(
      this.dim(
        `${first}–${first + result.items.length - 1} of ${result.total_items}` +
          (page && pages > 1 && result.items.length < result.total_items ? ` (page ${page.page} of ${pages}; --page for more)` : ''),
      ),
    );
  }

  /** One row as it arrives (a live feed): a TSV row when piped, the cells spaced out on a terminal. */
  row<T>(item: T, columns: Column<T>[]): void {
    if (this.json) return this.line(JSON.stringify(item));
    const cells = columns.map((c) => tsvCell(c.value(item)));
    this.line(this.tty ? cells.map((cell, i) => (i === 0 ? this.dim(cell) : cell)).join('  ') : cells.join('\t'));
  }

  async record<T>(record: T, fields?: Column<T>[]): Promise<void> {
    if (this.json) return this.printJson(record);
    const rows: [string, unknown][] = fields
      ? fields.map((f) => [f.header, f.value(record)])
      : Object.entries(record as Record<string, unknown>);
    if (!this.tty) {
      for (const [k, v] of rows) this.line(`${k}\t${tsvCell(v)}`);
      return;
    }
    const table = await this.table();
    for (const [k, v] of rows) table.push([this.bold(k), tableCell(v)]);
    this.line(table.toString());
  }

  printJson(data: unknown): void {
    this.line(JSON.stringify(data, null, this.tty ? 2 : undefined));
  }

  /** A confirmation for people; scripts get the JSON or nothing. */
  done(message: string): void {
    if (!this.json) this.line(this.tty ? this.green(message) : message);
  }

  /** Diagnostics, always on stderr. */
  note(message: string): void {
    this.stderr.write(`${message}\n`);
  }

  line(text: string): void {
    this.stdout.write(`${text}\n`);
  }

  private async table(head?: string[]) {
    const { default: Table } = await import('cli-table3');
    return new Table({
      ...(head ? { head } : {}),
      style: { head: this.color ? ['cyan'] : [], border: this.color ? ['grey'] : [] },
      wordWrap: true,
    });
  }

  private paint = (code: number, text: string) => (this.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  bold = (text: string) => this.paint(1, text);
  dim = (text: string) => this.paint(2, text);
  green = (text: string) => this.paint(32, text);
  red = (text: string) => this.paint(31, text);
}

const guarded = new WeakSet<NodeJS.WriteStream>();

/**
 * `agora users list | head -1`: the reader leaves early and the next write fails with EPIPE. That is the
 * reader's choice, not an error to report with a stack trace; the remaining output is simply dropped.
 */
function ignoreClosedPipe(stream: NodeJS.WriteStream): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

const toText = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
};

/** A TSV cell never contains a tab or a line break. */
const tsvCell = (value: unknown): string => toText(value).replace(/[\t\r\n]+/g, ' ');
const tableCell = (value: unknown): string => (value === null || value === undefined ? '-' : toText(value));
