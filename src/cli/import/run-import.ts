import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { ApiError, type ApiClient } from '../../client/api-client.js';
import { UsageError } from '../errors.js';
import { ProgressBar } from './progress.js';
import type { Source, SourceRow } from './read-rows.js';

export type RowStatus = 'created' | 'already' | 'failed' | 'valid' | 'skipped';

/** One line of `--report`: what became of a row. */
export interface RowReport {
  row: number;
  status: RowStatus;
  id?: string;
  error?: { code: string; message: string };
  /** Why a row was left_out over (`skipped`). */
  reason?: string;
}

interface SafeSchema {
  shape: Record<string, unknown>;
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
}

/** What is imported: the API path and the shared schema of its create body. */
export interface ImportKind {
  name: string;
  path: string;
  schema: SafeSchema;
  /** Fields a row may leave out that the command fills in (a password from --password-file). */
  complete?: (fields: Record<string, unknown>) => Record<string, unknown>;
  /** The ids of a valid row's body for the names people wrote instead (a nickname, a slug, a configuration's name). */
  resolve?: (body: Record<string, unknown>) => Promise<Record<string, unknown>>;
  /** Why a row is not to be imported at all (the bootstrap administrator of an export), or undefined. */
  skip?: (fields: Record<string, unknown>) => string | undefined;
  /** What a row carries beyond its create body, set once the record exists (an exported user's role). */
  after?: (id: string, fields: Record<string, unknown>) => Promise<void>;
  /**
   * The record a refused create finds already there though no run of the import made it (a follow made with
   * `follows create`: 409 already_following), with its id when known; undefined when the refusal is a failure.
   */
  already?: (error: ApiError, body: Record<string, unknown>) => Promise<{ id?: string } | undefined>;
}

export interface ImportOptions {
  client: ApiClient;
  kind: ImportKind;
  source: Source;
  concurrency: number;
  dryRun: boolean;
  report?: string;
  resume: boolean;
  /** The progress bar's stream: stderr when it is a terminal. */
  progress?: NodeJS.WriteStream;
  /** Told of each row that failed or was left_out over, as it happens (the command shows the first ones). */
  onFailure?: (report: RowReport) => void;
  /** Set when the import is to stop (Ctrl-C): no new row is sent, the rows in flight finish and are reported. */
  stopped?: { value: boolean };
}

export interface ImportSummary {
  created: number;
  already: number;
  failed: number;
  valid: number;
  skipped: number;
  /** Rows left_out over for a reason of their own (not by `--resume`). */
  left_out: number;
}

/**
 * Sends every row as its own create, `concurrency` at a time over the client's pool. Each row carries an
 * Idempotency-Key derived from the kind and the row's body: a rerun, or a retry after a lost answer, gets
 * the first answer back instead of a second record. Rows are validated with the shared schema before
 * anything is sent; a bad row is reported and never sent.
 */
export async function runImport(options: ImportOptions): Promise<ImportSummary> {
  const { kind } = options;
  if (options.resume && !options.report) throw new UsageError('--resume needs the report of the earlier run');
  const done = options.resume ? await rowsDone(options.report!) : new Set<number>();
  const report = options.report ? await openReport(options.report, options.resume) : undefined;
  const summary: ImportSummary = { created: 0, already: 0, failed: 0, valid: 0, skipped: 0, left_out: 0 };
  // The bar's share is of the rows done, not of the file read: the reading runs far ahead of the sending.
  let bytesDone = 0;
  let bytesSkipped = 0;
  const bar = options.progress
    ? new ProgressBar(options.progress, () => ({
        ...summary,
        skipped: summary.skipped + summary.left_out,
        bytes: bytesDone,
        bytesSkipped,
        total: options.source.size,
      }))
    : undefined;
  const fields = Object.keys(kind.schema.shape);

  const handle = async (source: SourceRow): Promise<void> => {
    if (done.has(source.row)) {
      summary.skipped++;
      bytesDone += source.bytes;
      bytesSkipped += source.bytes;
      return;
    }
    const outcome = await importRow(source);
    if (outcome.status === 'skipped') summary.left_out++;
    else summary[outcome.status]++;
    bytesDone += source.bytes;
    report?.write(`${JSON.stringify(outcome)}\n`);
    if (outcome.status === 'failed' || outcome.status === 'skipped') options.onFailure?.(outcome);
  };

  const importRow = async (source: SourceRow): Promise<RowReport> => {
    const row = source.row;
    if (!source.fields) return { row, status: 'failed', error: { code: 'unreadable_row', message: source.unreadable ?? 'unreadable' } };
    const reason = kind.skip?.(source.fields);
    if (reason) return { row, status: 'skipped', reason };
    const given = kind.complete ? kind.complete(source.fields) : source.fields;
    // Only the fields the API takes: an export's extra columns (id, role, created_at) are not sent.
    const body = Object.fromEntries(fields.filter((f) => given[f] !== undefined).map((f) => [f, given[f]]));
    const parsed = kind.schema.safeParse(body);
    if (!parsed.success) {
      const message = parsed.error.issues
        .map((i) => `${String(i.path[0] ?? 'row')}: ${i.message}${i.path[0] === 'password' && given.password === undefined ? ' (--password-file FILE gives every row one)' : ''}`)
        .join('; ');
      return { row, status: 'failed', error: { code: 'validation_failed', message } };
    }
    let sent: Record<string, unknown> | undefined;
    try {
      // Names are looked up (once each) in a dry run too: a name that matches nothing is a failed row either way.
      // What is sent, and keyed, is the row as the schema reads it: `"true"` from a CSV and `true` from JSON are
      // one row, so importing the same users from either format finds them already there.
      const data = parsed.data as Record<string, unknown>;
      sent = kind.resolve ? await kind.resolve(data) : data;
      if (options.dryRun) return { row, status: 'valid' };
      const key = idempotencyKey(kind.name, sent);
      const answer = await options.client.answer<{ id?: string }>('POST', kind.path, {
        body: sent,
        headers: { 'idempotency-key': key },
      });
      const id = answer.data?.id;
      if (id && kind.after) await kind.after(id, given);
      return { row, status: answer.replayed ? 'already' : 'created', id };
    } catch (error) {
      const existing = error instanceof ApiError && sent && kind.already ? await kind.already(error, sent) : undefined;
      if (existing) return { row, status: 'already', id: existing.id };
      if (error instanceof ApiError) return { row, status: 'failed', error: { code: error.code, message: error.message } };
      const name = (error as Error).name;
      if (name === 'NameNotFoundError') return { row, status: 'failed', error: { code: 'not_found', message: (error as Error).message } };
      if (name === 'UsageError') return { row, status: 'failed', error: { code: 'ambiguous_name', message: (error as Error).message } };
      throw error;
    }
  };

  const rows = options.source.rows[Symbol.asyncIterator]();
  let first: IteratorResult<SourceRow> | undefined;
  try {
    // The first row is read before anything is sent: a CSV's header is known then, and checked.
    first = await rows.next();
    checkColumns(options.source, kind, fields);
  } catch (error) {
    report?.end();
    throw error;
  }
  const next = () => {
    const row = first ?? rows.next();
    first = undefined;
    return row;
  };
  const worker = async () => {
    for (let row = await next(); !row.done && !options.stopped?.value; row = await next()) await handle(row.value);
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
    // Every row is done: the whole file is (a JSON array's brackets and spaces are in no row). Not when stopped:
    // the bar's last drawing says how far the run got.
    if (!options.stopped?.value) bytesDone = options.source.size ?? bytesDone;
  } finally {
    bar?.stop();
    if (report) await new Promise<void>((ok, fail) => report.end((error?: Error | null) => (error ? fail(error) : ok())));
  }
  return summary;
}

/**
 * A row's Idempotency-Key: a digest of the row as sent, but for its password. The key is stored by the server
 * for a day (and may be logged): a SHA-256 of the password and the row's other fields, all known but the
 * password, would let it be guessed at SHA-256's speed instead of scrypt's.
 */
export function idempotencyKey(kind: string, body: Record<string, unknown>): string {
  const { password: _password, ...rest } = body;
  return `agora-import-${kind}-${createHash('sha256').update(JSON.stringify(rest)).digest('hex').slice(0, 48)}`;
}

/**
 * A CSV whose header lacks a column every row needs would fail on every row: it is refused at once, naming the
 * columns missing and the ones the import reads, and nothing is sent.
 */
function checkColumns(source: Source, kind: ImportKind, fields: string[]): void {
  const columns = source.columns();
  if (!columns) return;
  const filled = kind.complete ? Object.keys(kind.complete({})) : [];
  const required = fields.filter(
    (f) => !filled.includes(f) && !(kind.schema.shape[f] as { safeParse(v: unknown): { success: boolean } }).safeParse(undefined).success,
  );
  const missing = required.filter((f) => !columns.includes(f));
  if (missing.length === 0) return;
  throw new UsageError(
    `${source.name} has no column ${missing.join(', ')} (its header: ${columns.join(', ') || 'empty'}); ` +
      `${kind.name} import reads ${fields.join(', ')}` +
      (missing.includes('password') ? '; give every row the same first password with --password-file FILE' : ''),
  );
}

/** The report file, open for writing before any row is sent: a report that cannot be written stops the import first. */
async function openReport(path: string, append: boolean): Promise<WriteStream> {
  const stream = createWriteStream(path, { flags: append ? 'a' : 'w' });
  try {
    await new Promise<void>((opened, failed) => stream.once('open', () => opened()).once('error', failed));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--report ${path} cannot be written (${code === 'ENOENT' ? 'no such folder' : (code ?? (error as Error).message)})`);
  }
  return stream;
}

/** Rows an earlier run's report shows as done (created or already there): `--resume` does not send them again. */
async function rowsDone(path: string): Promise<Set<number>> {
  const done = new Set<number>();
  try {
    for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
      // The last line of a run killed mid-write may be cut short: it is simply not counted.
      try {
        const entry = JSON.parse(line) as RowReport;
        if (entry.status === 'created' || entry.status === 'already' || entry.status === 'skipped') done.add(entry.row);
      } catch {
        continue;
      }
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return done;
}
