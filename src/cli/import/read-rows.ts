import { createReadStream, statSync } from 'node:fs';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import { Transform, type Readable } from 'node:stream';
import { unshieldedCell } from '../../shared/csv-cells.js';
import { UsageError } from '../errors.js';

export const IMPORT_FORMATS = ['csv', 'json', 'ndjson'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** One record of the file: its fields, or why it could not be read (a line that is not JSON). */
export interface SourceRow {
  row: number;
  fields?: Record<string, unknown>;
  unreadable?: string;
  /** The row's share of the input, in bytes (exact for NDJSON and CSV; a JSON array's rows as re-serialized). */
  bytes: number;
}

/** The file could not be read as a whole (a CSV quote never closed): nothing after it can be trusted. */
export class ImportFileError extends Error {
  override name = 'ImportFileError';
}

const BY_EXTENSION: Record<string, ImportFormat> = { '.csv': 'csv', '.json': 'json', '.ndjson': 'ndjson', '.jsonl': 'ndjson' };

/** `--format`, else the file's extension; standard input (`-`) needs `--format`. */
export function formatOf(file: string, explicit?: ImportFormat): ImportFormat {
  if (explicit) return explicit;
  const format = BY_EXTENSION[extname(file).toLowerCase()];
  if (format) return format;
  throw new UsageError(
    file === '-'
      ? 'reading standard input needs --format csv|json|ndjson'
      : `cannot tell the format of ${file} from its extension: give --format csv|json|ndjson`,
  );
}

/** The rows of an input, and how big it is (for the progress bar's ETA). */
export interface Source {
  rows: AsyncIterable<SourceRow>;
  /** The file's size; undefined for standard input. */
  size?: number;
  /** A CSV's header, once its first row is read (JSON has none: each record names its fields). */
  columns(): string[] | undefined;
  /** Where the rows come from, for messages: the file's name, or "standard input". */
  name: string;
}

/**
 * The records of a CSV (RFC 4180 with a header row, quotes, embedded commas and line breaks, a BOM), a JSON
 * array or NDJSON, read as a stream: memory stays flat whatever the file's size.
 */
export function openSource(file: string, format: ImportFormat): Source {
  const header: { columns?: string[] } = {};
  if (file === '-')
    return { rows: rowsOf(process.stdin, format, file, header), columns: () => header.columns, name: 'standard input' };
  // Checked here, so that a missing file is one line naming it, not a stream failing later.
  let size: number;
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) throw new ImportFileError(`${file} is a folder, not a file to import`);
    size = stat.size;
  } catch (error) {
    if (error instanceof ImportFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new ImportFileError(code === 'ENOENT' ? `${file}: no such file` : `cannot read ${file} (${code ?? (error as Error).message})`);
  }
  const input = createReadStream(file);
  return { rows: rowsOf(input, format, file, header), size, columns: () => header.columns, name: file };
}

/**
 * The input's bytes as they are, failing at the first that is not UTF-8: decoded leniently (as readline and csv-parse
 * do), a Latin-1 "José" became "Jos\uFFFD" and was imported so, exit 0. A CSV that starts with a UTF-16 byte order
 * mark is left to csv-parse, which reads it as such.
 */
export function utf8Only(format: ImportFormat): Transform {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let checked = 0;
  // The last chunk's end from its last character's first byte: a character split between chunks is whole again.
  let tail: Buffer = Buffer.alloc(0);
  let utf16: boolean | undefined;
  const fail = (bytes: Buffer) => new Error(`not UTF-8 text (at byte ${checked - tail.length + 1 + firstInvalid(bytes)}); save the file as UTF-8`);
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      utf16 ??= format === 'csv' && chunk.length >= 2 && ((chunk[0] === 0xff && chunk[1] === 0xfe) || (chunk[0] === 0xfe && chunk[1] === 0xff));
      if (!utf16)
        try {
          decoder.decode(chunk, { stream: true });
        } catch {
          return done(fail(Buffer.concat([tail, chunk])));
        }
      checked += chunk.length;
      tail = (chunk.length >= 4 ? chunk : Buffer.concat([tail, chunk])).subarray(-4);
      while (tail.length > 0 && (tail[0]! & 0xc0) === 0x80) tail = tail.subarray(1);
      done(null, chunk);
    },
    flush(done) {
      if (!utf16)
        try {
          decoder.decode();
        } catch {
          return done(fail(tail));
        }
      done();
    },
  });
}

/**
 * Where, in bytes that start at a character's first byte, the first sequence that is not UTF-8 starts: where a
 * lenient decoding first gives U+FFFD for bytes that are not that character's own encoding (EF BF BD).
 */
function firstInvalid(bytes: Buffer): number {
  const text = bytes.toString('utf8');
  let offset = 0;
  for (const char of text) {
    if (char === '\uFFFD' && !bytes.subarray(offset, offset + 3).equals(REPLACEMENT)) return offset;
    offset += Buffer.byteLength(char);
  }
  return 0;
}
const REPLACEMENT = Buffer.from('\uFFFD');

async function* rowsOf(source: Readable, format: ImportFormat, file: string, header: { columns?: string[] }): AsyncGenerator<SourceRow> {
  let row = 0;
  const checked = utf8Only(format);
  const input = into(source, checked);
  // Its failure may come before the parser is loaded and attached: `into` hands it on then, so none goes unheard.
  checked.on('error', () => {});
  try {
    if (format === 'ndjson') {
      for await (const line of createInterface({ input, crlfDelay: Infinity })) {
        if (line.trim() === '') continue;
        row++;
        // The line and its line break (a CRLF counted as one byte: nothing to an ETA).
        yield parseLine(row, line.replace(/^\uFEFF/, ''), Buffer.byteLength(line) + 1);
      }
    } else if (format === 'csv') {
      const { parse } = await import('csv-parse');
      const parser = into(
        input,
        parse({
          columns: (names: string[]) => (header.columns = distinct(names.map((name) => name.trim()))),
          bom: true,
          skip_empty_lines: true,
          relax_column_count: true,
          // Each record with the bytes parsed up to its end: the progress bar's share of the file.
          info: true,
        }),
      );
      let parsed = 0;
      for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { bytes: number } }>) {
        row++;
        // An empty cell is a field left out, as it would be in a form.
        // A cell an export wrote after a `'` so that spreadsheets do not run it as a formula: the text it was.
        const fields = Object.fromEntries(
          Object.entries(record)
            .filter(([, v]) => v !== '')
            .map(([k, v]) => [k, unshieldedCell(v)]),
        );
        // The header's bytes count with the first row.
        yield { row, fields, bytes: info.bytes - parsed };
        parsed = info.bytes;
      }
    } else {
      const { default: StreamArray } = await import('stream-json/streamers/StreamArray.js');
      for await (const { value } of into(input, StreamArray.withParser()) as AsyncIterable<{ value: unknown }>) {
        row++;
        // stream-json does not tell where a value ended: its size as JSON again, about what it took in the file.
        const bytes = Buffer.byteLength(JSON.stringify(value) ?? '') + 1;
        yield isRecord(value) ? { row, fields: value, bytes } : { row, unreadable: 'not a JSON object', bytes };
      }
    }
  } catch (error) {
    const where = file === '-' ? 'standard input' : file;
    throw new ImportFileError(`${where} cannot be read as ${format.toUpperCase()} after row ${row}: ${(error as Error).message}`);
  }
}

/** A header naming a column twice is refused: its last cell would silently stand for both. */
function distinct(columns: string[]): string[] {
  const twice = columns.find((name, i) => name !== '' && columns.indexOf(name) !== i);
  if (twice !== undefined) throw new Error(`its header names the column ${twice} twice`);
  return columns;
}

/** `from.pipe(to)`, and `from`'s failure (not UTF-8, the file unreadable) `to`'s, where the rows are read. */
function into<T extends NodeJS.WritableStream & { destroy(error?: Error): unknown }>(from: Readable, to: T): T {
  if (from.errored) to.destroy(from.errored);
  else from.on('error', (error) => to.destroy(error));
  return from.pipe(to);
}

function parseLine(row: number, line: string, bytes: number): SourceRow {
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) ? { row, fields: value, bytes } : { row, unreadable: 'not a JSON object', bytes };
  } catch {
    return { row, unreadable: 'not valid JSON', bytes };
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
