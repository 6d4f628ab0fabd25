import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const MAX_WAIT_MS = 50;

/**
 * Checkpoints a SQLite log on a thread of its own: a checkpoint on the event loop pauses every request. PASSIVE, so it
 * never waits for a reader or writer. SQLite starts the log over only when a write begins with all of it copied back,
 * which ongoing commits would prevent: so a whole copy made while commits went on is followed by a catch-up one,
 * which the writer waits for (`idle`).
 */
export interface Checkpointer {
  /** While a catch-up checkpoint runs: settled when it ends, or `MAX_WAIT_MS` after it began; else undefined. */
  idle(): Promise<void> | undefined;
  /** Stops the thread (after any checkpoint in progress). */
  stop(): Promise<void>;
}

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
  // A log left partly copied has every read search its index: checkpointed again even with nothing written since.
  let seen = '';
  let whole = true;
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
    // Commits went on during a whole copy: catch up with what they wrote (`idle`).
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
  // A worker exits after an error: nothing more is asked of it.
  worker.on('error', (error) => {
    stopped = true;
    clearInterval(timer);
    options.onError?.(error);
  });
  return {
    idle() {
      // `MAX_WAIT_MS` in all, however many writers ask.
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
