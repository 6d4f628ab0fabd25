import type { Command } from 'commander';
import type { Delivery, Webhook } from '../../shared/schemas/webhooks.js';
import { doneRecord, eachRecord, examples, idsFrom, paginationOptions, showList, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column, RecordView } from '../output.js';
import { selfCommand } from '../self-command.js';

const COLUMNS: Column<Webhook>[] = [
  { header: 'id', value: (w) => w.id, id: true },
  { header: 'url', value: (w) => w.url },
  { header: 'events', value: (w) => w.events.join(' ') },
];

const DELIVERY_COLUMNS: Column<Delivery>[] = [
  // Whole: deliveries are listed under their webhook, so `redeliver` takes no prefix of theirs.
  { header: 'id', value: (d) => d.id, id: 'whole' },
  { header: 'event', value: (d) => d.event },
  { header: 'status', value: (d) => d.status },
  { header: 'attempts', value: (d) => d.attempts },
  { header: 'last code', value: (d) => d.last_status_code },
  { header: 'last error', value: (d) => d.last_error },
  { header: 'next attempt', value: (d) => d.next_attempt_at },
];

/** Its events as the list writes them; its circuit in words (`closed`, `open until … (5 failed in a row)`). */
const WEBHOOK_VIEW: RecordView<Webhook> = {
  format: {
    events: (events: Webhook['events']) => events.join(' '),
    circuit: (c: Webhook['circuit']) =>
      `${c.state.replace('_', '-')}${c.open_until ? ` until ${c.open_until}` : ''}${c.consecutive_failures ? ` (${c.consecutive_failures} failed in a row)` : ''}`,
  },
};
/** The payload is in --json; the view says what was sent and how it went. */
const DELIVERY_VIEW: RecordView<Delivery> = { omit: ['payload'] };

/** `--event` repeated; in any case, as every enum-like option (the events are written in lower case). */
const collect = (value: string, previous: string[] = []) => [...previous, value.toLowerCase()];

export function registerWebhookCommands(program: Command): void {
  const webhooks = program.command('webhooks').description('signed notifications of access requests, invites and reports (Admins)');

  examples(
    webhooks
      .command('add')
      .description('register a URL; its signing secret is printed once')
      // The URL is an argument, not `--url`: `--url` is the program's option (the agora server's address) and
      // commander gives it to the program wherever it stands on the line.
      .argument('[url]', 'http(s) URL receiving the POSTs')
      .option('--event <event>', 'event to send, e.g. report.created (repeatable; default: every event)', collect),
    'agora webhooks add https://hooks.example.org/agora --event invite.created --event invite.updated',
  ).action(async (url: string | undefined, o: { event?: string[] }, command: Command) => {
    // The body is checked before the credentials are looked for: a webhook URL given as `--url` is the server's
    // address, most likely with no credentials stored for it (exit 4), and the mistake is what is to be said.
    const [{ CreateWebhookInput, WEBHOOK_EVENTS }, { UsageError }] = await Promise.all([import('../../shared/schemas/webhooks.js'), import('../errors.js')]);
    if (url === undefined)
      throw new UsageError(
        process.argv.includes('--url') || process.argv.some((a) => a.startsWith('--url='))
          ? `give the webhook URL as the argument: ${selfCommand()} webhooks add <url> --event … (--url is the address of the agora server)`
          : `missing the webhook URL: ${selfCommand()} webhooks add <url> --event …`,
      );
    const body = await validateBody(CreateWebhookInput, { url, events: o.event ?? [...WEBHOOK_EVENTS] }, { url: '<url>', events: '--event' });
    await withContext(async ({ client, out }) => {
      const created = await client.post<Webhook>('/webhooks', body);
      await out.record(created, WEBHOOK_VIEW);
      if (!out.json && out.tty) out.note('The secret is shown only this once: store it now.');
    })(command);
  });

  examples(paginationOptions(webhooks.command('list').description('list webhooks')), 'agora webhooks list').action(
    withContext<PageOptions>(async (ctx, o) => {
      await showList(ctx, '/webhooks', {}, COLUMNS, o);
    }),
  );

  examples(
    webhooks.command('get').description('show one webhook (never its secret)').argument('<id>', 'webhook id'),
    'agora webhooks get 3f2a…',
  ).action(
      withContext(async ({ client, out, names }, _o, args) => {
        const [{ seg }, { ID_LISTS }] = await Promise.all([import('../../client/api-client.js'), import('../names.js')]);
        const [id] = await names.fullIds(ID_LISTS.webhook, args);
        await out.record(await client.get<Webhook>(`/webhooks/${seg(id!)}`), WEBHOOK_VIEW);
      }),
    );

  examples(
    webhooks
      .command('remove')
      .description('remove webhooks and their deliveries')
      .argument('<id...>', 'webhook ids, or - to read them from standard input')
      .option('-y, --yes', 'do not ask for confirmation'),
    'agora webhooks remove 3f2a… --yes',
  ).action(
      withContext<{ yes?: boolean }>(async (ctx, o, args) => {
        const { client, out, names } = ctx;
        const [{ seg }, { confirmOrStop, mayAsk }, { ID_LISTS }] = await Promise.all([
          import('../../client/api-client.js'),
          import('../confirm.js'),
          import('../names.js'),
        ]);
        const ids = await names.fullIds(ID_LISTS.webhook, await idsFrom(args));
        await eachRecord(ctx, ids, (id) => `Webhook ${id}`, async (id) => {
          const hook = mayAsk(o.yes) ? await client.get<Webhook>(`/webhooks/${seg(id)}`) : undefined;
          await confirmOrStop(`Remove the webhook to ${hook ? hook.url : id}?`, o.yes);
          await client.delete(`/webhooks/${seg(id)}`);
          out.done(`Webhook ${id} removed`, doneRecord(id, 'removed'));
        }, { adminsOnly: true });
      }),
    );

  examples(
    paginationOptions(
      webhooks.command('deliveries').description("a webhook's deliveries, newest first").argument('<id>', 'webhook id'),
    ),
    'agora webhooks deliveries 3f2a…',
  ).action(
    withContext<PageOptions>(async (ctx, o, args) => {
      const [{ seg }, { ID_LISTS }] = await Promise.all([import('../../client/api-client.js'), import('../names.js')]);
      const [id] = await ctx.names.fullIds(ID_LISTS.webhook, args);
      await showList(ctx, `/webhooks/${seg(id!)}/deliveries`, {}, DELIVERY_COLUMNS, o);
    }),
  );

  examples(
    webhooks
      .command('redeliver')
      .description('send a delivery again')
      .argument('<delivery-id>', "the delivery's whole id (webhooks deliveries shows it)"),
    'agora webhooks redeliver 9b1c…',
  ).action(
      withContext(async ({ client, out }, _o, args) => {
        const [{ seg }, { wholeIds }] = await Promise.all([import('../../client/api-client.js'), import('../names.js')]);
        const [id] = wholeIds('webhook delivery', args);
        await out.record(await client.post<Delivery>(`/webhook_deliveries/${seg(id!)}/redeliver`, {}), DELIVERY_VIEW);
      }),
    );
}
