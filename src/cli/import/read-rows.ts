import { createReadStream, statSync } from 'node:fs';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { UsageError } from '../errors.js';

export const IMPORT_FORMATS = ['csv', 'json', 'ndjson'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** One record of the file: its fields, or why it could not be read (a line that is not JSON). */
export interface SourceRow {
  row: number;
  fields?: Record<string, unknown>;
  unreadable?: string;
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

/** The bytes read so far of the input, for the progress bar's ETA. */
export interface Source {
  rows: AsyncIterable<SourceRow>;
  bytesRead(): number;
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
    return { rows: rowsOf(process.stdin, format, file, header), bytesRead: () => 0, columns: () => header.columns, name: 'standard input' };
  // Checked here, so that a missing file is one line naming it, not a stream failing later.
  try {
    if (statSync(file).isDirectory()) throw new ImportFileError(`${file} is a folder, not a file to import`);
  } catch (error) {
    if (error instanceof ImportFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new ImportFileError(code === 'ENOENT' ? `${file}: no such file` : `cannot read ${file} (${code ?? (error as Error).message})`);
  }
  const input = createReadStream(file);
  return { rows: rowsOf(input, format, file, header), bytesRead: () => input.bytesRead, columns: () => header.columns, name: file };
}

async function* rowsOf(input: Readable, format: ImportFormat, file: string, header: { columns?: string[] }): AsyncGenerator<SourceRow> {
  let row = 0;
  try {
    if (format === 'ndjson') {
      for await (const line of createInterface({ input, crlfDelay: Infinity })) {
        if (line.trim() === '') continue;
        row++;
        yield parseLine(row, line.replace(/^\uFEFF/, ''));
      }
    } else if (format === 'csv') {
      const { parse } = await import('csv-parse');
      const parser = input.pipe(
        parse({
          columns: (names: string[]) => (header.columns = names.map((name) => name.trim())),
          bom: true,
          skip_empty_lines: true,
          relax_column_count: true,
        }),
      );
      for await (const record of parser as AsyncIterable<Record<string, string>>) {
        row++;
        // An empty cell is a field left out, as it would be in a form.
        const fields = Object.fromEntries(Object.entries(record).filter(([, v]) => v !== ''));
        yield { row, fields };
      }
    } else {
      const { default: StreamArray } = await import('stream-json/streamers/StreamArray.js');
      for await (const { value } of input.pipe(StreamArray.withParser()) as AsyncIterable<{ value: unknown }>) {
        row++;
        yield isRecord(value) ? { row, fields: value } : { row, unreadable: 'is not a JSON object' };
      }
    }
  } catch (error) {
    const where = file === '-' ? 'standard input' : file;
    throw new ImportFileError(`${where} cannot be read as ${format.toUpperCase()} after row ${row}: ${(error as Error).message}`);
  }
}

function parseLine(row: number, line: string): SourceRow {
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) ? { row, fields: value } : { row, unreadable: 'is not a JSON object' };
  } catch {
    return { row, unreadable: 'is not valid JSON' };
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
