import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Checkpoints a SQLite file's write-ahead log on a thread of its own, so that the event loop never does.
 *
 * SQLite checkpoints on the connection whose commit took the log past `wal_autocheckpoint` pages: that
 * commit then copies the log's pages back into the database and syncs it, a pause of 10–80 ms on this
 * machine that every request waiting on the event loop shares (the mixed benchmark's p99). `agora serve`
 * sets the writer's threshold high instead (a safety net, should this thread fall behind) and runs a
 * PASSIVE checkpoint here every `intervalMs` (200) in which the log was written: it never waits for a
 * writer or a reader, so it never holds up a request either, and copies only the pages written since the
 * last one; a checkpoint that finds the log busy (another process checkpointing, a long read) copies what
 * it can, and the next one the rest.
 */
export interface Checkpointer {
  /** Stops the thread (after any checkpoint in progress). */
  stop(): Promise<void>;
}

// The thread: one connection of its own to the file, a PASSIVE checkpoint when asked.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
parentPort.on('message', (message) => {
  if (message === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  let result;
  try {
    result = db.pragma('wal_checkpoint(PASSIVE)')[0];
  } catch (error) {
    result = { error: String(error && error.message) };
  }
  parentPort.postMessage(result);
});
`;

export function startCheckpointer(
  file: string,
  options: { intervalMs?: number; onError?: (error: unknown) => void } = {},
): Checkpointer {
  const wal = `${file}-wal`;
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(THREAD, { eval: true, workerData: { file, driver } });
  worker.unref();
  let busy = false;
  let stopped = false;
  let exited = false;
  worker.once('exit', () => (exited = true));
  // The log as it was when the last checkpoint began (its modification time and size), and whether that
  // checkpoint copied all of it: another is asked for when something was written to the log since, or when
  // the last one could not copy everything (a reader was still on an older snapshot). A log copied whole is
  // what lets readers ignore it (SQLite reads the database file alone then) and the next writer start it
  // over; one left partly copied would have every read search its index until the next write.
  let seen = '';
  let whole = true;
  worker.on('message', (result: { busy?: number; log?: number; checkpointed?: number; error?: string }) => {
    busy = false;
    whole = !result.error && !result.busy && result.log === result.checkpointed;
  });
  const timer = setInterval(() => {
    if (busy || stopped) return;
    const now = stampOf(wal);
    if (now === seen && whole) return;
    seen = now;
    busy = true;
    worker.postMessage('check');
  }, options.intervalMs ?? 200);
  timer.unref();
  // The thread is gone after an error (it exits): no checkpoint is asked of it again, and the caller is told.
  worker.on('error', (error) => {
    stopped = true;
    clearInterval(timer);
    options.onError?.(error);
  });
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      if (exited) return Promise.resolve();
      return new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        // Held while it stops: an unreferenced thread would let the process end before it had (exit code 0,
        // whatever the caller was about to say).
        worker.ref();
        worker.postMessage('stop');
      });
    },
  };
}

function stampOf(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.mtimeMs}:${stat.size}`;
  } catch {
    return '';
  }
}
