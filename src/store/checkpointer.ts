import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const MAX_WAIT_MS = 50;

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
 *
 * SQLite starts the log over only when a write transaction begins with all of the log copied back. With writes
 * going on during each checkpoint, every one ended with a newer commit not copied yet, the log never started
 * over, and it grew to the writer's threshold, whose commit then checkpointed on the event loop: measured at a
 * million pages, 90/10 reads and follows, 12 to 17 commits of 14 to 30 ms in an 8 s run (about 50 requests
 * waiting on each). So a checkpoint that copied the log whole while commits went on is followed at once by a
 * catch-up checkpoint, of what those commits wrote, which the writer waits for before its next transaction
 * (`idle`, the store's write groups ask it; the reads go on). Writers waiting for every checkpoint instead held
 * the writes for 21 to 32 ms each time.
 */
export interface Checkpointer {
  /**
   * While a catch-up checkpoint runs (below): a promise settled when it ends, or once `MAX_WAIT_MS` have passed
   * since it began, should it take longer; undefined otherwise. A writer that waits for it before its transaction
   * begins finds the log copied whole and starts it over.
   */
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
  // The catch-up checkpoint in progress (below), settled as it ends (or as the thread exits).
  let catchUp: { settled: Promise<void>; end: () => void; until: number } | undefined;
  const ended = () => {
    catchUp?.end();
    catchUp = undefined;
  };
  worker.once('exit', () => {
    exited = true;
    ended();
  });
  // The log as it was when the last checkpoint began (its modification time and size), and whether that
  // checkpoint copied all of it: another is asked for when something was written to the log since, or when
  // the last one could not copy everything (a reader was still on an older snapshot). A log copied whole is
  // what lets readers ignore it (SQLite reads the database file alone then) and the next writer start it
  // over; one left partly copied would have every read search its index until the next write.
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
    // Commits went on while it copied the log whole: one more at once, which the writer waits for (`idle`), short
    // since it copies only what those commits wrote; the next write transaction then starts the log over.
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
