import { createWriteStream, renameSync, rmSync, type WriteStream } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import type { ApiClient } from '../client/api-client.js';
import { UsageError } from './errors.js';
import { terminalJson, visibleRows } from './safe-text.js';
import { holdLine } from './spinner.js';

/**
 * `agora users export`: the server's stream copied as it comes, to standard output or to a file. A file is
 * written under a temporary name beside it and renamed when the export is whole, so that a failure half-way
 * (the server gone, Ctrl-C) never leaves a file that looks complete. Rows are counted as they pass, for the
 * line on the terminal and the final count. Answers the number of users exported.
 */
export async function exportUsers(
  client: ApiClient,
  format: 'ndjson' | 'csv',
  output: string | undefined,
  progress: NodeJS.WriteStream | undefined,
): Promise<number> {
  const file = output ? await openPartial(output) : undefined;
  let lines = 0;
  let quoted = false;
  let shown = 0;
  // The line is the count's while it is shown: the slow-call spinner keeps off it.
  const release = progress && holdLine(progress);
  const timer = progress && setInterval(() => progress.write(`\r\u001b[2K${(shown = users())} users exported`), 250);
  const users = () => Math.max(0, format === 'csv' ? lines - 1 : lines);
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (format === 'ndjson') for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      else
        // A CSV cell may hold a line break inside its quotes ("" inside quotes toggles twice: no change).
        for (const byte of chunk) {
          if (byte === 34) quoted = !quoted;
          else if (byte === 10 && !quoted) lines++;
        }
      done(null, chunk);
    },
  });
  try {
    const body = await client.download('/users/export', { format }, [format === 'csv' ? 'text/csv' : 'application/x-ndjson']);
    if (file) await pipeline(body, count, file.stream);
    // Standard output is not ours to end: the exit's flush (src/main.ts) still writes to it, and a terminal's
    // stdout ended by the pipeline made that write fail (ERR_STREAM_WRITE_AFTER_END), a crash after the export.
    // On a terminal, what the rows hold is shown, not acted on (docs/security.md): a name cannot clear the screen.
    else if (process.stdout.isTTY) await pipeline(body, count, forTerminal(format), process.stdout, { end: false });
    else await pipeline(body, count, process.stdout, { end: false });
    if (file) renameSync(file.partial, output!);
  } catch (error) {
    if (file) rmSync(file.partial, { force: true });
    // Standard output's reader left (`| head`): its choice, not a failure (docs/architecture.md, "The client and the CLI").
    if (!file && isClosedPipe(error)) return users();
    throw error;
  } finally {
    release?.();
    if (timer) {
      clearInterval(timer);
      if (shown > 0 || users() > 0) progress!.write(`\r\u001b[2K`);
    }
  }
  return users();
}

/** The export's text with its control characters escaped (NDJSON: `\\uXXXX`, the same JSON) or made visible (CSV). */
function forTerminal(format: 'ndjson' | 'csv'): Transform {
  // Decoded as one stream: a character split across two chunks is not two U+FFFD.
  const decoder = new StringDecoder('utf8');
  const safe = format === 'ndjson' ? terminalJson : visibleRows;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      done(null, safe(decoder.write(chunk)));
    },
    flush(done) {
      done(null, safe(decoder.end()));
    },
  });
}

const isClosedPipe = (error: unknown) =>
  (error as NodeJS.ErrnoException).code === 'EPIPE' && (error as NodeJS.ErrnoException).syscall === 'write';

/** `.name.partial-<pid>` beside the file, open before the request: a folder that cannot be written stops here. */
async function openPartial(output: string): Promise<{ partial: string; stream: WriteStream }> {
  const partial = join(dirname(output), `.${basename(output)}.partial-${process.pid}`);
  const stream = createWriteStream(partial, { mode: 0o600 });
  try {
    await new Promise<void>((opened, failed) => stream.once('open', () => opened()).once('error', failed));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--output ${output} cannot be written (${code === 'ENOENT' ? 'no such folder' : (code ?? (error as Error).message)})`);
  }
  return { partial, stream };
}
