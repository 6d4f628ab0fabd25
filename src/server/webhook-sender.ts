import { signWebhook } from '../domain/webhooks.js';
import type { Store } from '../store/store.js';
import type { DeliveryRow } from '../store/webhooks.js';
import { BlockedTargetError, postWebhook } from './webhook-post.js';
import { WakeLoop } from './wake-loop.js';

/** Seconds before each retry: 8 retries over about a day (with ±20 % jitter), then the delivery has failed. */
export const DEFAULT_RETRY_SCHEDULE = [10, 60, 300, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600];

export interface WebhookSenderOptions {
  store: Store;
  clock?: () => Date;
  allowPrivate?: boolean;
  retrySchedule?: number[];
  timeoutMs?: number;
  concurrency?: number;
  /** How long a claimed delivery's lease outlasts the attempt's timeout, before another process may take it (default 30 s). */
  leaseMarginMs?: number;
  /** Attempts in flight to one webhook at most (default 1, per process). */
  perWebhookConcurrency?: number;
  /** Failed attempts in a row that open a webhook's circuit (default 5). */
  breakerThreshold?: number;
  /** How long an opened circuit stays open, doubling at each failure after that (default 60 s, at most 1 h). */
  breakerOpenMs?: number;
  pollMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * Posts the outbox's deliveries in the background. Each attempt is bounded by a timeout and the number
 * of attempts in flight is bounded, so a receiver that hangs costs a few sockets, never the API. One
 * webhook has one attempt in flight at most; webhooks whose last attempts failed share at most half of
 * the slots; and a webhook that failed `breakerThreshold` times in a row is left alone for a while
 * (its circuit is open, then one attempt tries it again): so a healthy webhook always finds a free slot.
 * A delivery is claimed with a lease before it is sent, so a crash mid-send only delays it.
 */
export class WebhookSender {
  private readonly inFlight = new Set<Promise<void>>();
  /** Attempts in flight per webhook id. */
  private readonly inFlightByWebhook = new Map<string, number>();
  /** Attempts in flight to webhooks whose last attempt failed. */
  private failingInFlight = 0;
  private readonly loop: WakeLoop;
  private readonly clock: () => Date;
  private readonly schedule: number[];
  private readonly timeoutMs: number;
  private readonly leaseMarginMs: number;
  private readonly concurrency: number;
  private readonly perWebhook: number;
  private readonly failingSlots: number;

  constructor(private readonly options: WebhookSenderOptions) {
    this.clock = options.clock ?? (() => new Date());
    this.schedule = options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.leaseMarginMs = options.leaseMarginMs ?? 30_000;
    this.concurrency = options.concurrency ?? 8;
    this.perWebhook = options.perWebhookConcurrency ?? 1;
    this.failingSlots = Math.max(1, Math.floor(this.concurrency / 2));
    this.loop = new WakeLoop(() => this.tick(), options.pollMs ?? 1_000, options.onError);
  }

  start(): void {
    this.loop.start();
  }

  /** Looks for due deliveries now (after a change was committed). */
  wake(): void {
    this.loop.wake();
  }

  private get running(): boolean {
    return this.loop.running;
  }

  /** Stops taking deliveries and waits for the attempts under way (each bounded by the timeout). */
  async stop(): Promise<void> {
    // A tick under way may still start the attempt it has just claimed: wait for it, then for them all
    // (otherwise the store closes under an attempt, which then stays leased and unrecorded).
    await this.loop.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  /** Where the next tick starts in the list of webhooks, so that each gets its turn first. */
  private turn = 0;

  /**
   * One look for due deliveries, webhook by webhook (there are few webhooks, and each look is one index
   * range): a webhook's backlog, however long, costs nothing to the others, and a webhook whose circuit is
   * open is not looked at at all.
   */
  private async tick(): Promise<void> {
    let free = this.concurrency - this.inFlight.size;
    if (free <= 0) return;
    const now = this.clock();
    const hooks = await this.options.store.webhooks.deliverable(now.toISOString());
    const lease = new Date(now.getTime() + this.timeoutMs + this.leaseMarginMs).toISOString();
    this.turn = hooks.length ? (this.turn + 1) % hooks.length : 0;
    for (const hook of [...hooks.slice(this.turn), ...hooks.slice(0, this.turn)]) {
      if (!this.running || free <= 0) return;
      const busy = this.inFlightByWebhook.get(hook.id) ?? 0;
      const failing = hook.consecutive_failures > 0;
      if (busy >= this.perWebhook || (failing && this.failingInFlight >= this.failingSlots)) continue;
      const claimed = await this.options.store.deliveries.claimDue(hook.id, now.toISOString(), Math.min(free, this.perWebhook - busy), lease);
      // Claimed while running: launched even if a stop began meanwhile (stop waits for them), never left leased.
      for (const row of claimed) {
        free -= 1;
        this.launch(row, failing);
      }
    }
  }

  private launch(row: DeliveryRow, failing: boolean): void {
    this.inFlightByWebhook.set(row.webhook_id, (this.inFlightByWebhook.get(row.webhook_id) ?? 0) + 1);
    if (failing) this.failingInFlight += 1;
    const attempt = this.attempt(row)
      .catch((error) => this.options.onError?.(error))
      .finally(() => {
        this.inFlight.delete(attempt);
        if (failing) this.failingInFlight -= 1;
        const left = (this.inFlightByWebhook.get(row.webhook_id) ?? 1) - 1;
        if (left > 0) this.inFlightByWebhook.set(row.webhook_id, left);
        else this.inFlightByWebhook.delete(row.webhook_id);
        // A slot is free: there may be more waiting.
        this.wake();
      });
    this.inFlight.add(attempt);
  }

  private async attempt(row: DeliveryRow): Promise<void> {
    const hook = await this.options.store.webhooks.getById(row.webhook_id);
    if (!hook) return;
    let status: number | null = null;
    let error: string | null = null;
    let blocked = false;
    try {
      status = await this.post(hook.url, this.options.store.webhooks.secrets.open(hook.secret), row);
      if (status < 200 || status >= 300) error = `receiver answered HTTP ${status}`;
    } catch (e) {
      const err = e as Error & { code?: string; cause?: { code?: string; message?: string } };
      blocked = err instanceof BlockedTargetError;
      error =
        err.name === 'TimeoutError' || err.name === 'AbortError'
          ? `no answer within ${this.timeoutMs} ms`
          : (err.code ?? err.cause?.code ?? err.cause?.message ?? err.message);
    }
    const now = this.clock();
    const attempts = row.attempts + 1;
    const delivered = error === null;
    // A receiver refused as private will not become public by waiting: no retries.
    const retryIn = blocked ? undefined : this.schedule[attempts - 1];
    const jitter = 0.8 + Math.random() * 0.4;
    await this.options.store.deliveries.recordAttempt(row.id, {
      status: delivered ? 'delivered' : retryIn === undefined ? 'failed' : 'pending',
      attempts,
      next_attempt_at:
        delivered || retryIn === undefined
          ? now.toISOString()
          : new Date(now.getTime() + retryIn * 1000 * jitter).toISOString(),
      last_attempt_at: now.toISOString(),
      last_status_code: status,
      last_error: error?.slice(0, 500) ?? null,
      delivered_at: delivered ? now.toISOString() : null,
    });
    await this.options.store.webhooks.recordOutcome(hook.id, delivered, now.toISOString(), {
      threshold: this.options.breakerThreshold ?? 5,
      openMs: this.options.breakerOpenMs ?? 60_000,
      maxOpenMs: 3_600_000,
    });
  }

  private async post(url: string, secret: string, row: DeliveryRow): Promise<number> {
    const timestamp = Math.floor(this.clock().getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'agora-webhooks/1',
      'webhook-id': row.message_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(secret, row.message_id, timestamp, row.payload),
    };
    return postWebhook(url, headers, row.payload, { timeoutMs: this.timeoutMs, allowPrivate: !!this.options.allowPrivate });
  }
}
