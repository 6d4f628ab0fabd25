import type { Kysely, Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import type { Database, WebhookDeliveryTable, WebhookTable } from './schema.js';
import { counterKey, counterOf, walkPage, type Listed } from './paging.js';

export type WebhookRow = Selectable<WebhookTable>;
export type DeliveryRow = Selectable<WebhookDeliveryTable>;

export function webhooksRepo(db: Kysely<Database>) {
  return {
    async insert(row: WebhookRow): Promise<void> {
      await db.insertInto('webhooks').values(row).execute();
    },
    getById(id: string): Promise<WebhookRow | undefined> {
      return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
    },
    all(): Promise<WebhookRow[]> {
      return db.selectFrom('webhooks').selectAll().orderBy('id').execute();
    },
    async list(page: Pagination): Promise<Listed<WebhookRow>> {
      const [walked, total] = await Promise.all([
        walkPage<WebhookRow>([{ query: db.selectFrom('webhooks'), keys: ['webhooks.id'] }], (q) => q.selectAll('webhooks'), page),
        counterOf(db, counterKey('webhooks', [])),
      ]);
      return { ...walked, total };
    },
    async delete(id: string): Promise<void> {
      await db.deleteFrom('webhooks').where('id', '=', id).execute();
    },
  };
}
export type WebhooksRepo = ReturnType<typeof webhooksRepo>;

/** The delivery outbox: rows written in the same transaction as the change they report. */
export function deliveriesRepo(db: Kysely<Database>) {
  return {
    async insert(row: DeliveryRow): Promise<void> {
      await db.insertInto('webhook_deliveries').values(row).execute();
    },
    getById(id: string): Promise<DeliveryRow | undefined> {
      return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** Pending deliveries whose next attempt is due, oldest first, leaving out those of `skipWebhooks`. */
    due(now: string, limit: number, skipWebhooks: readonly string[] = []): Promise<DeliveryRow[]> {
      let query = db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now);
      if (skipWebhooks.length) query = query.where('webhook_id', 'not in', skipWebhooks);
      return query.orderBy('next_attempt_at').orderBy('id').limit(limit).execute();
    },
    /**
     * Takes a delivery for one attempt by moving its next attempt to the end of a lease: another sender
     * (or this one after a crash) can only take it again once the lease has run out.
     */
    async claim(row: DeliveryRow, leaseUntil: string): Promise<boolean> {
      const result = await db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: leaseUntil })
        .where('id', '=', row.id)
        .where('status', '=', 'pending')
        .where('next_attempt_at', '=', row.next_attempt_at)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async recordAttempt(
      id: string,
      changes: Pick<DeliveryRow, 'status' | 'attempts' | 'next_attempt_at' | 'last_attempt_at' | 'last_status_code' | 'last_error' | 'delivered_at'>,
    ): Promise<void> {
      await db.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute();
    },
    /** Newest first. */
    async listForWebhook(webhookId: string, page: Pagination): Promise<Listed<DeliveryRow>> {
      const [walked, total] = await Promise.all([
        walkPage<DeliveryRow>(
          [{ query: db.selectFrom('webhook_deliveries').where('webhook_deliveries.webhook_id', '=', webhookId), keys: ['webhook_deliveries.id'] }],
          (q) => q.selectAll('webhook_deliveries'),
          page,
          true,
        ),
        counterOf(db, counterKey('webhook_deliveries', [webhookId])),
      ]);
      return { ...walked, total };
    },
  };
}
export type DeliveriesRepo = ReturnType<typeof deliveriesRepo>;
