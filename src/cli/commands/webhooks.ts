import type { Command } from 'commander';
import type { ListResult } from '../../shared/schemas/common.js';
import type { Delivery, Webhook } from '../../shared/schemas/webhooks.js';
import { pageQuery, paginationOptions, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column } from '../output.js';

const COLUMNS: Column<Webhook>[] = [
  { header: 'id', value: (w) => w.id },
  { header: 'url', value: (w) => w.url },
  { header: 'events', value: (w) => w.events.join(' ') },
];

/** `webhooks get` also shows the circuit breaker. */
const GET_COLUMNS: Column<Webhook>[] = [
  ...COLUMNS,
  {
    header: 'circuit',
    value: (w) =>
      w.circuit.state === 'closed' && w.circuit.consecutive_failures === 0
        ? 'closed'
        : `${w.circuit.state} (${w.circuit.consecutive_failures} failures in a row${w.circuit.open_until ? `, until ${w.circuit.open_until}` : ''})`,
  },
];

const DELIVERY_COLUMNS: Column<Delivery>[] = [
  { header: 'id', value: (d) => d.id },
  { header: 'event', value: (d) => d.event },
  { header: 'status', value: (d) => d.status },
  { header: 'attempts', value: (d) => d.attempts },
  { header: 'last code', value: (d) => d.last_status_code },
  { header: 'last error', value: (d) => d.last_error },
  { header: 'next attempt', value: (d) => d.next_attempt_at },
];

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerWebhookCommands(program: Command): void {
  const webhooks = program.command('webhooks').description('signed notifications of access requests and invites (Admins)');

  webhooks
    .command('add')
    .description('register a URL; its signing secret is printed once')
    // The URL is an argument, not `--url`: `--url` is the program's option (the agora server's address) and
    // commander gives it to the program wherever it stands on the line.
    .argument('[url]', 'http(s) URL receiving the POSTs')
    .option('--event <event>', 'event to send, e.g. invite.created (repeatable; default: all six)', collect)
    .action(
      withContext<{ event?: string[] }>(async ({ client, out }, o, [url]) => {
        const [{ CreateWebhookInput, WEBHOOK_EVENTS }, { UsageError }] = await Promise.all([
          import('../../shared/schemas/webhooks.js'),
          import('../errors.js'),
        ]);
        if (url === undefined)
          throw new UsageError(
            process.argv.includes('--url') || process.argv.some((a) => a.startsWith('--url='))
              ? 'give the webhook URL as the argument: agora webhooks add <url> --event … (--url is the address of the agora server)'
              : 'missing the webhook URL: agora webhooks add <url> --event …',
          );
        const body = await validateBody(CreateWebhookInput, { url, events: o.event ?? [...WEBHOOK_EVENTS] }, { url: '<url>', events: '--event' });
        const created = await client.post<Webhook>('/webhooks', body);
        await out.record(created);
        if (!out.json && out.tty) out.note('The secret is shown only this once: store it now.');
      }),
    );

  paginationOptions(webhooks.command('list').description('list webhooks')).action(
    withContext<PageOptions>(async ({ client, out }, o) => {
      await out.list(await client.get<ListResult<Webhook>>('/webhooks', pageQuery(o)), COLUMNS, pageQuery(o));
    }),
  );

  webhooks
    .command('get')
    .description('show one webhook (never its secret)')
    .argument('<id>', 'webhook id')
    .action(
      withContext(async ({ client, out }, _o, [id]) => {
        const { seg } = await import('../../client/api-client.js');
        await out.record(await client.get<Webhook>(`/webhooks/${seg(id!)}`), GET_COLUMNS);
      }),
    );

  webhooks
    .command('remove')
    .description('remove a webhook and its deliveries')
    .argument('<id>', 'webhook id')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(
      withContext<{ yes?: boolean }>(async ({ client, out }, o, [id]) => {
        const [{ seg }, { confirmOrStop }] = await Promise.all([import('../../client/api-client.js'), import('../confirm.js')]);
        await confirmOrStop(`Remove webhook ${id}?`, o.yes);
        await client.delete(`/webhooks/${seg(id!)}`);
        out.done(`Webhook ${id} removed`);
      }),
    );

  paginationOptions(
    webhooks.command('deliveries').description("a webhook's deliveries, newest first").argument('<id>', 'webhook id'),
  ).action(
    withContext<PageOptions>(async ({ client, out }, o, [id]) => {
      const { seg } = await import('../../client/api-client.js');
      const result = await client.get<ListResult<Delivery>>(`/webhooks/${seg(id!)}/deliveries`, pageQuery(o));
      await out.list(result, DELIVERY_COLUMNS, pageQuery(o));
    }),
  );

  webhooks
    .command('redeliver')
    .description('send a delivery again')
    .argument('<delivery-id>', 'delivery id')
    .action(
      withContext(async ({ client, out }, _o, [id]) => {
        const { seg } = await import('../../client/api-client.js');
        await out.record(await client.post<Delivery>(`/webhook_deliveries/${seg(id!)}/redeliver`, {}), DELIVERY_COLUMNS);
      }),
    );
}
