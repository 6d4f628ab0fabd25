import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

const MAX_GROUP = 32;
type Job = { fn(db: Kysely<Database>): Promise<unknown>; resolve(value: unknown): void; reject(error: unknown): void };

/**
 * SQLite transactions committed in groups of savepoints, so the pages they share are written once; each is answered
 * after its group commits, and one that fails is rolled back alone. `begin immediate`: a deferred BEGIN that reads
 * then writes fails with SQLITE_BUSY when another process wrote between.
 */
export class GroupCommit {
  private readonly waiting: Job[] = [];
  private running = false;

  constructor(
    private readonly db: Kysely<Database>,
    /** Runs a transaction control statement straight on the driver's one connection (the one Kysely holds). */
    private readonly control: (statement: string) => void,
    private readonly committed?: () => void,
  ) {}

  /** Runs `fn` on the connection in the next group, answered once the group committed. */
  run<T>(fn: (conn: Kysely<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.running) {
        this.running = true;
        // After this turn's other requests have asked for theirs: they join the same group.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      await this.db.connection().execute(async (conn) => {
        while (this.waiting.length) await this.group(conn);
      });
    } catch (error) {
      for (const job of this.waiting.splice(0)) job.reject(error);
    } finally {
      this.running = false;
      if (this.waiting.length) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    }
  }

  private async group(conn: Kysely<Database>): Promise<void> {
    const done: { resolve: () => void; reject: (error: unknown) => void }[] = [];
    let current: { reject: (error: unknown) => void; settled: boolean } | undefined;
    this.control('begin immediate');
    try {
      for (let n = 0; n < MAX_GROUP && this.waiting.length; n++) {
        const job = this.waiting.shift()!;
        current = { reject: job.reject, settled: false };
        this.control('savepoint agora_tx');
        try {
          const value = await job.fn(conn);
          this.control('release agora_tx');
          current.settled = true;
          done.push({ resolve: () => job.resolve(value), reject: job.reject });
        } catch (error) {
          current.settled = true;
          job.reject(error);
          this.control('rollback to agora_tx');
          this.control('release agora_tx');
        }
      }
      this.control('commit');
      this.committed?.();
    } catch (error) {
      // None of the group was written: those that succeeded fail too.
      try {
        this.control('rollback');
      } catch {
        // SQLite rolled it back itself: no transaction is left.
      }
      if (current && !current.settled) current.reject(error);
      for (const job of done) job.reject(error);
      return;
    }
    for (const job of done) job.resolve();
  }
}
