import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const MAX_WAIT_MS = 50;

/**
 * Checkpoints a SQLite file's write-ahead log on a thread of its own: a commit that checkpoints on the event loop
 * pauses every request waiting there. `agora serve` raises the writer's `wal_autocheckpoint` (a safety net) and this
 * runs a PASSIVE checkpoint every `intervalMs` in which the log was written: it never waits for a reader or a writer;
 * one that finds the log busy copies what it can, and the next one the rest.
 *
 * SQLite starts the log over only when a write transaction begins with all of it copied back, which commits going on
 * during every checkpoint would prevent (the log then grows to the writer's threshold). So a checkpoint that copied
 * the log whole while commits went on is followed at once by a catch-up one, which the writer waits for (`idle`).
 */
export interface Checkpointer {
  /** While a catch-up checkpoint runs: settled when it ends, or `MAX_WAIT_MS` after it began; else undefined. */
  idle(): Promise<void> | undefined;
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
  let catchUp: { settled: Promise<void>; end: () => void; until: number } | undefined;
  const ended = () => {
    catchUp?.end();
    catchUp = undefined;
  };
  worker.once('exit', () => {
    exited = true;
    ended();
  });
  // The log as the last checkpoint began (mtime:size), and whether it copied all of it: a log left partly copied
  // has every read search its index, so it is checkpointed again even when nothing was written since.
  let seen = '';
  let whole = true;
  /** Asks the thread for a checkpoint of the log as it is now (`stamp`, its modification time and size). */
  const check = (stamp: string, catchingUp: boolean) => {
    seen = stamp;
    busy = true;
    if (catchingUp) {
      let end = () => {};
      catchUp = { settled: new Promise<void>((resolve) => (end = resolve)), end: () => end(), until: Date.now() + MAX_WAIT_MS };
    }
    worker.postMessage('check');
  };
  worker.on('message', (result: { busy?: number; log?: number; checkpointed?: number; error?: string }) => {
    busy = false;
    whole = !result.error && !result.busy && result.log === result.checkpointed;
    const caughtUp = catchUp !== undefined;
    ended();
    // Commits went on while it copied the log whole: a catch-up checkpoint of what they wrote (`idle`).
    if (!whole || caughtUp || stopped) return;
    const now = stampOf(wal);
    if (now !== seen) check(now, true);
  });
  const timer = setInterval(() => {
    if (busy || stopped) return;
    const now = stampOf(wal);
    if (now !== seen || !whole) check(now, false);
  }, options.intervalMs ?? 200);
  timer.unref();
  // The thread is gone after an error (it exits): no checkpoint is asked of it again, and the caller is told.
  worker.on('error', (error) => {
    stopped = true;
    clearInterval(timer);
    options.onError?.(error);
  });
  return {
    idle() {
      // Waited for up to `MAX_WAIT_MS` in all, however many writers ask, and however often.
      const left = catchUp ? catchUp.until - Date.now() : 0;
      if (!catchUp || left <= 0) return undefined;
      return Promise.race([catchUp.settled, new Promise<void>((resolve) => setTimeout(resolve, left).unref())]);
    },
    stop() {
      stopped = true;
      clearInterval(timer);
      if (exited) return Promise.resolve();
      return new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        // Held while it stops: an unreferenced thread would let the process exit first (with code 0).
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
