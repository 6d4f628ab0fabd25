import { z } from 'zod';
import { documentedAs, formArray, Id, listOf, PaginationQuery, Timestamp, typeError } from './common.js';
import { exampleDelivery, exampleWebhook, exampleWebhookPayload } from './examples.js';
import { AccessRequestSchema, InviteSchema } from './membership.js';
import { ReportSchema } from './reports.js';

export const WEBHOOK_EVENTS = [
  'page_access_request.created',
  'page_access_request.updated',
  'page_access_request.deleted',
  'invite.created',
  'invite.updated',
  'invite.deleted',
  'report.created',
  'report.updated',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** What an event is about: its name's first part. */
const WEBHOOK_RESOURCES = ['page_access_request', 'invite', 'report'] as const;

export const CreateWebhookInput = z.object({
  url: z
    .string(typeError('a string'))
    .trim()
    .max(2048, 'must be at most 2048 characters')
    .pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }))
    .meta({ format: 'uri', description: 'An http(s) URL; not a loopback or private address unless the server allows them' }),
  events: formArray(z.enum(WEBHOOK_EVENTS, { error: `must each be one of: ${WEBHOOK_EVENTS.join(', ')}` }))
    .refine((e) => e.length > 0, 'must name at least one event')
    .transform((e) => [...new Set(e)]),
}).meta({ id: 'CreateWebhookInput', examples: [{ url: exampleWebhook.url, events: exampleWebhook.events }] });
export type CreateWebhookInput = z.infer<typeof CreateWebhookInput>;

export const WebhookSchema = z.object({
  id: Id,
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENTS)),
  secret: z.string().optional().describe('Shown once, in the answer that created the webhook (not in an Idempotency-Key replay of it): the Standard Webhooks signing secret (whsec_…)'),
  circuit: z
    .object({
      state: z.enum(['closed', 'open', 'half_open']),
      consecutive_failures: z.number().int(),
      open_until: Timestamp.nullable(),
    })
    .meta({
      id: 'WebhookCircuit',
      description:
        'Circuit breaker: after 5 failed attempts in a row the webhook is left alone until open_until (60 s, doubling, at most 1 h); then one attempt (half_open) closes it on success',
    }),
  created_at: Timestamp,
  updated_at: Timestamp,
}).meta({ id: 'Webhook', examples: [exampleWebhook] });
export type Webhook = z.infer<typeof WebhookSchema>;
export const WebhookListSchema = listOf(WebhookSchema);
export const ListWebhooksQuery = PaginationQuery;

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

export const DeliverySchema = z.object({
  id: Id,
  webhook_id: Id,
  message_id: z.string().describe('The webhook-id header; the same on every attempt and on redelivery'),
  event: z.enum(WEBHOOK_EVENTS),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  next_attempt_at: Timestamp.nullable(),
  last_attempt_at: Timestamp.nullable(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  delivered_at: Timestamp.nullable(),
  created_at: Timestamp,
  payload: z.unknown(),
}).meta({ id: 'Delivery', examples: [exampleDelivery] });
export type Delivery = z.infer<typeof DeliverySchema>;
export const DeliveryListSchema = listOf(DeliverySchema);

/** The body of every webhook POST. */
export interface WebhookPayload {
  id: string;
  webhook_type: 'create' | 'update' | 'destroy';
  resource: (typeof WEBHOOK_RESOURCES)[number];
  data: unknown;
}

/** What the document shows of a delivery's payload: the body POSTed, as it was when the change happened. */
const WebhookPayloadSchema = z
  .object({
    id: Id.describe('The message id, also the webhook-id header'),
    webhook_type: z.enum(['create', 'update', 'destroy']),
    resource: z.enum(WEBHOOK_RESOURCES),
    data: z.union([AccessRequestSchema, InviteSchema, ReportSchema]).describe('The record, as the API answered it then'),
  })
  .meta({ id: 'WebhookPayload', examples: [exampleWebhookPayload] });
// Kept as sent, so read back as it is (an older payload may lack a field added since): the document shows its shape.
documentedAs.set(DeliverySchema.shape.payload, WebhookPayloadSchema);
