import { ErrorCode } from '../../shared/errors.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  type WebhookPolicy,
} from '../../domain/webhooks.js';
import { IdParams, PaginationQuery } from '../../shared/schemas/common.js';
import {
  CreateWebhookInput,
  DeliveryListSchema,
  DeliverySchema,
  ListWebhooksQuery,
  WebhookListSchema,
  WebhookSchema,
} from '../../shared/schemas/webhooks.js';
import type { RouteContext } from '../context.js';

export function registerWebhookRoutes({ routes, deps }: RouteContext, policy: WebhookPolicy): void {
  const tag = 'Webhooks';
  routes.add(
    {
      method: 'POST',
      url: '/webhooks',
      operationId: 'create_webhook',
      tag,
      summary: 'Register a webhook (Admins); the signing secret is shown only in this answer',
      body: CreateWebhookInput,
      response: WebhookSchema,
    },
    ({ body, caller }) => createWebhook(deps, caller, body, policy),
  );
  routes.add(
    { method: 'GET', url: '/webhooks', operationId: 'list_webhooks', tag, summary: 'List webhooks (Admins)', query: ListWebhooksQuery, response: WebhookListSchema },
    ({ query, caller }) => listWebhooks(deps, caller, query),
  );
  routes.add(
    { method: 'GET', url: '/webhooks/:id', operationId: 'get_webhook', tag, summary: 'Get a webhook (Admins)', params: IdParams, response: WebhookSchema },
    ({ params, caller }) => getWebhook(deps, caller, params.id),
  );
  routes.add(
    { method: 'DELETE', url: '/webhooks/:id', operationId: 'delete_webhook', tag, summary: 'Remove a webhook (Admins)', params: IdParams, status: 204 },
    async ({ params, caller }) => {
      await deleteWebhook(deps, caller, params.id);
      return undefined;
    },
  );
  routes.add(
    {
      method: 'GET',
      url: '/webhooks/:id/deliveries',
      operationId: 'list_webhook_deliveries',
      tag,
      summary: "A webhook's deliveries, newest first: status, attempts, last response",
      params: IdParams,
      query: PaginationQuery,
      response: DeliveryListSchema,
    },
    ({ params, query, caller }) => listDeliveries(deps, caller, params.id, query),
  );
  routes.add(
    {
      method: 'POST',
      url: '/webhook_deliveries/:id/redeliver',
      operationId: 'redeliver_webhook_delivery',
      conflicts: [ErrorCode.conflict],
      tag,
      summary: 'Send a delivery again (a new delivery of the same message)',
      params: IdParams,
      response: DeliverySchema,
      status: 202,
    },
    ({ params, caller }) => redeliver(deps, caller, params.id),
  );
}
