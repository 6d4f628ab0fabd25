import { createHmac, randomBytes } from 'node:crypto';
import { AppError, ErrorCode, invalidField, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { listResult, type ListResult, type Pagination } from '../shared/schemas/common.js';
import type {
  CreateWebhookInput,
  Delivery,
  Webhook,
  WebhookEvent,
  WebhookPayload,
} from '../shared/schemas/webhooks.js';
import type { Store } from '../store/store.js';
import type { DeliveryRow, WebhookRow } from '../store/webhooks.js';
import { recordAudit } from './audit.js';
import { nowIso, type Caller, type Deps } from './context.js';
import { requireAdmin } from './permissions.js';
import { refuseWebhookUrl } from './webhook-targets.js';

const KIND: Record<string, WebhookPayload['webhook_type']> = { created: 'create', updated: 'update', deleted: 'destroy' };

/**
 * Writes one delivery row per subscribed webhook, inside the caller's transaction (an outbox): the
 * delivery exists exactly when the change does. The sender posts it afterwards.
 */
export async function recordWebhookEvent(tx: Store, now: string, event: WebhookEvent, data: unknown): Promise<number> {
  const hooks = (await tx.webhooks.all()).filter((h) => (JSON.parse(h.events) as string[]).includes(event));
  const [resource, action] = event.split('.') as [WebhookPayload['resource'], string];
  for (const hook of hooks) {
    const id = newId();
    const payload: WebhookPayload = { id, webhook_type: KIND[action]!, resource, data };
    await tx.deliveries.insert(newDelivery({ webhook_id: hook.id, message_id: id, event, payload: JSON.stringify(payload) }, now, id));
  }
  return hooks.length;
}

/** A delivery of a message, due now, not yet attempted. */
export function newDelivery(
  message: Pick<DeliveryRow, 'webhook_id' | 'message_id' | 'event' | 'payload'>,
  now: string,
  id = newId(),
): DeliveryRow {
  return {
    ...message,
    id,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    last_attempt_at: null,
    last_status_code: null,
    last_error: null,
    delivered_at: null,
    created_at: now,
  };
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the secret's base64 part. */
export function signWebhook(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
}

const toWebhookRecord = (row: WebhookRow, now: string, secret?: string): Webhook => ({
  id: row.id,
  url: row.url,
  events: JSON.parse(row.events) as Webhook['events'],
  ...(secret ? { secret } : {}),
  circuit: {
    state: !row.circuit_open_until ? 'closed' : row.circuit_open_until > now ? 'open' : 'half_open',
    consecutive_failures: row.consecutive_failures,
    open_until: row.circuit_open_until,
  },
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export const toDeliveryRecord = (row: DeliveryRow): Delivery => ({
  id: row.id,
  webhook_id: row.webhook_id,
  message_id: row.message_id,
  event: row.event as Delivery['event'],
  status: row.status as Delivery['status'],
  attempts: row.attempts,
  next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
  last_attempt_at: row.last_attempt_at,
  last_status_code: row.last_status_code,
  last_error: row.last_error,
  delivered_at: row.delivered_at,
  created_at: row.created_at,
  payload: JSON.parse(row.payload) as unknown,
});

/**
 * The webhooks whose signing secrets this store's key cannot open (a server started with another AGORA_SECRET_KEY
 * than before, or a SQLite file's `<db>.key` set aside): each of their deliveries would fail.
 */
export async function webhooksNotOpened(deps: Deps): Promise<string[]> {
  const unopened: string[] = [];
  for (const hook of await deps.store.webhooks.all())
    try {
      deps.store.webhooks.secrets.open(hook.secret);
    } catch {
      unopened.push(hook.id);
    }
  return unopened;
}

export interface WebhookPolicy {
  /** AGORA_WEBHOOKS_ALLOW_PRIVATE=1: loopback and private targets allowed (local demos and tests). */
  allowPrivate: boolean;
}

export async function createWebhook(
  deps: Deps,
  caller: Caller,
  input: CreateWebhookInput,
  policy: WebhookPolicy,
): Promise<Webhook> {
  requireAdmin(caller, 'manage webhooks');
  const refusal = refuseWebhookUrl(input.url, policy.allowPrivate);
  if (refusal) throw invalidField('url', refusal);
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const now = nowIso(deps);
  const row: WebhookRow = {
    id: newId(),
    url: input.url,
    events: JSON.stringify(input.events),
    secret,
    user_id: caller.user.id,
    created_at: now,
    updated_at: now,
    consecutive_failures: 0,
    circuit_open_until: null,
  };
  await deps.store.transaction(async (tx) => {
    await tx.webhooks.insert(row);
    await recordAudit(tx, now, caller, {
      action: 'webhook.create',
      target_id: row.id,
      summary: `added a webhook to ${row.url}`,
    });
  });
  return toWebhookRecord(row, now, secret);
}

export async function listWebhooks(deps: Deps, caller: Caller, page: Pagination): Promise<ListResult<Webhook>> {
  requireAdmin(caller, 'manage webhooks');
  const listed = await deps.store.webhooks.list(page);
  const now = nowIso(deps);
  return listResult(listed.rows.map((r) => toWebhookRecord(r, now)), listed);
}

async function findWebhook(deps: Deps, caller: Caller, id: string): Promise<WebhookRow> {
  requireAdmin(caller, 'manage webhooks');
  const row = await deps.store.webhooks.getById(id);
  if (!row) throw notFound('Webhook');
  return row;
}

export async function getWebhook(deps: Deps, caller: Caller, id: string): Promise<Webhook> {
  return toWebhookRecord(await findWebhook(deps, caller, id), nowIso(deps));
}

export async function deleteWebhook(deps: Deps, caller: Caller, id: string): Promise<void> {
  await deps.store.transaction(async (tx) => {
    const row = await findWebhook({ ...deps, store: tx }, caller, id);
    // The delete says whether this request removed it: removals racing all read it, and each wrote an audit entry.
    if (!(await tx.webhooks.delete(id))) throw notFound('Webhook');
    await recordAudit(tx, nowIso(deps), caller, {
      action: 'webhook.delete',
      target_id: id,
      summary: `removed the webhook to ${row.url}`,
    });
  });
}

export async function listDeliveries(
  deps: Deps,
  caller: Caller,
  webhookId: string,
  page: Pagination,
): Promise<ListResult<Delivery>> {
  await findWebhook(deps, caller, webhookId);
  const listed = await deps.store.deliveries.listForWebhook(webhookId, page);
  return listResult(listed.rows.map(toDeliveryRecord), listed);
}

/**
 * Sends a delivery again: a new delivery row with the same message (same `webhook-id`, so receivers can
 * tell it is the same event) due now.
 */
export async function redeliver(deps: Deps, caller: Caller, deliveryId: string): Promise<Delivery> {
  requireAdmin(caller, 'manage webhooks');
  const row = await deps.store.transaction(async (tx) => {
    const original = await tx.deliveries.getById(deliveryId);
    if (!original) throw notFound('Webhook delivery');
    // Locked: redeliveries of one message, of the same delivery or of different ones, take turns (else each missed
    // the other's new delivery, and the message was pending twice).
    const webhook = await tx.webhooks.getForUpdate(original.webhook_id);
    if (!webhook) throw new AppError(409, ErrorCode.conflict, 'The webhook of this delivery has been removed');
    const now = nowIso(deps);
    const resent = newDelivery(original, now);
    // One message, one pending delivery: the retries scheduled of the original, or of an earlier redelivery, stop
    // (else the message came twice).
    await tx.deliveries.supersede(original, resent.id, now);
    await tx.deliveries.insert(resent);
    await recordAudit(tx, now, caller, {
      action: 'webhook_delivery.redeliver',
      target_id: original.id,
      summary: `resent the ${original.event} delivery ${original.id} to ${webhook.url}`,
    });
    return resent;
  });
  deps.webhooks?.wake();
  return toDeliveryRecord(row);
}
