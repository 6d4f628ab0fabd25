import { sql, type Kysely, type Selectable } from 'kysely';
import type { Dialect } from './dialect.js';
import type { Pagination } from '../shared/schemas/common.js';
import type { Database } from './schema.js';
import { SecretBox } from './secret-box.js';
import { everyRow, counterKey, kept, listPage, type Listed } from './paging.js';
import { byId, deleter, inserter } from './rows.js';

export type WebhookRow = Selectable<Database['webhooks']>;
export type DeliveryRow = Selectable<Database['webhook_deliveries']>;

/**
 * Webhooks; secrets are stored sealed and read sealed (listing never needs them): `secrets` opens them for the sender,
 * and seals again what `admin copy` opened with the source's key.
 */
export function webhooksRepo(db: Kysely<Database>, box: SecretBox) {
  return {
    secrets: box,
    async insert(row: WebhookRow): Promise<void> {
      await db.insertInto('webhooks').values({ ...row, secret: box.seal(row.secret) }).execute();
    },
    getById: byId(db, 'webhooks'),
    /** Locked: redeliveries to one webhook take turns, each superseding what the one before it left pending. */
    getForUpdate: byId(db, 'webhooks', true),
    all(): Promise<WebhookRow[]> {
      return db.selectFrom('webhooks').selectAll().orderBy('id').execute();
    },
    /** Webhooks whose circuit is not open at `now`, with their failures in a row. */
    deliverable(now: string): Promise<Pick<WebhookRow, 'id' | 'consecutive_failures'>[]> {
      return db
        .selectFrom('webhooks')
        .select(['id', 'consecutive_failures'])
        .where((eb) => eb.or([eb('circuit_open_until', 'is', null), eb('circuit_open_until', '<=', now)]))
        .orderBy('id')
        .execute();
    },
    list: everyRow(db, 'webhooks'),
    delete: deleter(db, 'webhooks'),
    /**
     * The circuit breaker (senders may share the store: failures are added in SQL): a success closes it; `threshold`
     * failures in a row open it for `openMs`, doubled at each further failure up to `maxOpenMs`.
     */
    async recordOutcome(
      id: string,
      succeeded: boolean,
      now: string,
      breaker: { threshold: number; openMs: number; maxOpenMs: number },
    ): Promise<void> {
      if (succeeded) {
        await db
          .updateTable('webhooks')
          .set({ consecutive_failures: 0, circuit_open_until: null })
          .where('id', '=', id)
          .where('consecutive_failures', '>', 0)
          .execute();
        return;
      }
      const row = await db.selectFrom('webhooks').select('consecutive_failures').where('id', '=', id).executeTakeFirst();
      if (!row) return;
      const failures = row.consecutive_failures + 1;
      const over = failures - breaker.threshold;
      const openUntil =
        over >= 0
          ? new Date(Date.parse(now) + Math.min(breaker.maxOpenMs, breaker.openMs * 2 ** Math.min(over, 20))).toISOString()
          : null;
      await db
        .updateTable('webhooks')
        .set((eb) => ({ consecutive_failures: eb('consecutive_failures', '+', 1), circuit_open_until: openUntil }))
        .where('id', '=', id)
        .execute();
    },
  };
}

/** The delivery outbox: rows written in the same transaction as the change they report. */
export function deliveriesRepo(db: Kysely<Database>, dialect: Dialect) {
  return {
    insert: inserter(db, 'webhook_deliveries'),
    getById: byId(db, 'webhook_deliveries'),
    /**
     * Claims a webhook's due deliveries by moving their next attempt to the lease's end (due again after a crash). On
     * PostgreSQL `SKIP LOCKED`, so concurrent senders take different ones.
     */
    claimDue(webhookId: string, now: string, limit: number, leaseUntil: string): Promise<DeliveryRow[]> {
      const due = db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('webhook_id', '=', webhookId)
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .orderBy('id')
        .limit(limit);
      // `= any(array(…))` runs once; as `in (…)` PostgreSQL may rerun the subquery, and its LIMIT no longer bounds it.
      const claimed =
        dialect === 'postgres'
          ? sql<boolean>`${sql.ref('id')} = any(array(${due.forUpdate().skipLocked()}))`
          : sql<boolean>`${sql.ref('id')} in (${due})`;
      return db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: leaseUntil })
        .where(claimed)
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .returningAll()
        .execute();
    },
    /**
     * An attempt's outcome, on a delivery still pending: one superseded by a redelivery while its attempt was in
     * flight stays stopped (else a failed attempt scheduled its retry again, and the message went twice).
     */
    async recordAttempt(
      id: string,
      changes: Pick<DeliveryRow, 'status' | 'attempts' | 'next_attempt_at' | 'last_attempt_at' | 'last_status_code' | 'last_error' | 'delivered_at'>,
    ): Promise<void> {
      await db.updateTable('webhook_deliveries').set(changes).where('id', '=', id).where('status', '=', 'pending').execute();
    },
    /** Stops every pending delivery of a message (the original, an earlier redelivery): redelivery `by` sends it. */
    async supersede(message: Pick<DeliveryRow, 'webhook_id' | 'message_id'>, by: string, now: string): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', next_attempt_at: now, last_error: `superseded by the redelivery ${by}` })
        .where('webhook_id', '=', message.webhook_id)
        .where('message_id', '=', message.message_id)
        .where('status', '=', 'pending')
        .execute();
    },
    /** Newest first. */
    async listForWebhook(webhookId: string, page: Pagination): Promise<Listed<DeliveryRow>> {
      return listPage<DeliveryRow>(
        db,
        [{ query: db.selectFrom('webhook_deliveries').where('webhook_deliveries.webhook_id', '=', webhookId), keys: ['webhook_deliveries.id'] }],
        (q) => q.selectAll('webhook_deliveries'),
        page,
        kept([counterKey('webhook_deliveries', [webhookId])]),
        { desc: true },
      );
    },
  };
}
