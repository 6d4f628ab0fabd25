import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { Deps } from '../domain/context.js';
import { runFanOutBatch } from '../domain/notifications.js';
import { WakeLoop } from './wake-loop.js';

export interface FanOutOptions {
  deps: Deps;
  /** Recipients written per transaction. */
  batchSize?: number;
  /** How long a claim holds before another process may take the job over (a process that died). */
  leaseMs?: number;
  pollMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * Carries out the notification fan-outs recorded in the outbox: each job in batches of a few hundred
 * recipients, one short transaction each, yielding to requests between batches, so a status in a page of
 * 100,000 members never holds the write lock for long. A job is claimed with a lease (one statement; on
 * PostgreSQL `FOR UPDATE SKIP LOCKED`, so that several processes each take a different job); each batch
 * checks the lease and moves it on in its transaction. A process that dies mid-job leaves the lease to run
 * out and another (or this one, restarted) carries on from the job's cursor.
 * Graceful stop gives the claim back at once.
 */
export class NotificationFanOut {
  private readonly loop: WakeLoop;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  /** Jobs this process holds, with the lease it holds them by. */
  private readonly held = new Map<string, string>();

  constructor(private readonly options: FanOutOptions) {
    this.batchSize = options.batchSize ?? 100;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.loop = new WakeLoop(() => this.work(), options.pollMs ?? 1_000, options.onError);
  }

  start(): void {
    this.loop.start();
  }

  wake(): void {
    this.loop.wake();
  }

  private get running(): boolean {
    return this.loop.running;
  }

  /** Resolves once every job due now is done (for tests and the benchmark). */
  async drain(): Promise<void> {
    for (;;) {
      await this.loop.current;
      const now = this.options.deps.clock().toISOString();
      if ((await this.options.deps.store.notificationJobs.due(now, 1)).length === 0 && !this.loop.current) return;
      this.wake();
      await this.loop.current;
    }
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    // Give back what this process held, so that the next one starts at once instead of after the lease.
    const now = this.options.deps.clock().toISOString();
    for (const [id, lease] of this.held) await this.options.deps.store.notificationJobs.claim(id, lease, now).catch(() => false);
    this.held.clear();
  }

  private leaseFrom(now: number): string {
    return new Date(now + this.leaseMs).toISOString();
  }

  private async work(): Promise<void> {
    const { store, clock } = this.options.deps;
    while (this.running) {
      const now = clock();
      let lease = this.leaseFrom(now.getTime());
      const job = await store.notificationJobs.claimNext(now.toISOString(), lease);
      if (!job) return;
      lease = job.lease_until;
      this.held.set(job.id, lease);
      try {
        for (;;) {
          const next = this.leaseFrom(Math.max(clock().getTime(), Date.parse(lease) - this.leaseMs + 1));
          const outcome = await runFanOutBatch(this.options.deps, job.id, lease, next, this.batchSize);
          if (outcome !== 'more') break;
          this.held.set(job.id, next);
          lease = next;
          await yieldToRequests();
          if (!this.running) return;
        }
      } finally {
        if (this.running || this.held.get(job.id) !== lease) this.held.delete(job.id);
      }
    }
  }
}
