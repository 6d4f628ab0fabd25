import type { Command } from 'commander';
import type { ListResult } from '../../shared/schemas/common.js';
import type { Invite, InviteCreation } from '../../shared/schemas/membership.js';
import { pageQuery, paginationOptions, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column } from '../output.js';

export const INVITE_COLUMNS: Column<Invite>[] = [
  { header: 'id', value: (i) => i.id },
  { header: 'page', value: (i) => i.target.name },
  { header: 'from', value: (i) => i.user.nickname },
  { header: 'to', value: (i) => i.user_target.nickname },
  { header: 'state', value: (i) => i.state },
];

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerInviteCommands(program: Command): void {
  const invites = program.command('invites').description('invites to join pages');

  invites
    .command('create')
    .description('invite users to a page; each is invited or reported with the reason')
    .requiredOption('--page <id>', 'page to invite to')
    .requiredOption('--user <id>', 'user to invite (repeat for several)', collect)
    .option('--from <id>', 'the inviting user (default: you)')
    .action(
      withContext<{ page: string; user: string[]; from?: string }>(async ({ client, out }, o) => {
        const { CreateInvitesInput } = await import('../../shared/schemas/membership.js');
        const user_id = o.from ?? (await client.get<{ id: string }>('/me')).id;
        const body = await validateBody(
          CreateInvitesInput,
          { target_type: 'Page', target_id: o.page, user_id, user_target_ids: o.user },
          { target_id: '--page', user_id: '--from', user_target_ids: '--user' },
        );
        const result = await client.post<InviteCreation>('/invites', body);
        // Like a bulk import: what could be done is done, and a user left out makes the exit code 1.
        const notInvited = () => new Error(`${result.errors.length} of ${o.user.length} users were not invited`);
        if (out.json) {
          out.printJson(result);
          if (result.errors.length > 0) throw notInvited();
          return;
        }
        // One row per user, in the order they were given.
        const order = (user: string) => {
          const at = o.user.findIndex((given) => given.trim() === user);
          return at === -1 ? o.user.length : at;
        };
        const rows = [
          ...result.success.map((i) => ({ user: i.user_target_id, result: 'invited', invite: i.id })),
          ...result.errors.flatMap((e) => Object.entries(e).map(([user, message]) => ({ user, result: message, invite: '' }))),
        ].sort((a, b) => order(a.user) - order(b.user));
        await out.list({ items: rows, total_items: rows.length }, [
          { header: 'user', value: (r) => r.user },
          { header: 'result', value: (r) => r.result },
          { header: 'invite', value: (r) => r.invite },
        ]);
        if (result.errors.length > 0) throw notInvited();
      }),
    );

  paginationOptions(
    invites
      .command('list')
      .description('list invites')
      .option('--page-id <id>', 'only invites to this page')
      .option('--from <id>', 'only invites sent by this user')
      .option('--to <id>', 'only invites received by this user')
      .option('--state <state>', 'waiting, accepted or refused'),
  ).action(
    withContext<PageOptions & { pageId?: string; from?: string; to?: string; state?: string }>(async ({ client, out }, o) => {
      const { seg } = await import('../../client/api-client.js');
      const query = { ...pageQuery(o), user_id: o.from, user_target_id: o.to, state: o.state };
      const result = o.pageId
        ? await client.get<ListResult<Invite>>(`/pages/${seg(o.pageId)}/invites`, query)
        : await client.get<ListResult<Invite>>('/invites', query);
      await out.list(result, INVITE_COLUMNS, pageQuery(o));
    }),
  );

  invites
    .command('get')
    .description('show one invite')
    .argument('<id>', 'invite id')
    .action(
      withContext(async ({ client, out }, _o, [id]) => {
        const { seg } = await import('../../client/api-client.js');
        await out.record(await client.get<Invite>(`/invites/${seg(id!)}`), INVITE_COLUMNS);
      }),
    );

  invites
    .command('accept')
    .description('accept a waiting invite (page administrators): the invited user joins the page')
    .argument('<id>', 'invite id')
    .action(
      withContext(async ({ client, out }, _o, [id]) => {
        const { seg } = await import('../../client/api-client.js');
        await out.record(await client.put<Invite>(`/invites/${seg(id!)}/accept`), INVITE_COLUMNS);
      }),
    );

  invites
    .command('refuse')
    .description('refuse a waiting invite (page administrators); the invite is kept as refused')
    .argument('<id>', 'invite id')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(
      withContext<{ yes?: boolean }>(async ({ client, out }, o, [id]) => {
        const [{ seg }, { confirmOrStop }] = await Promise.all([import('../../client/api-client.js'), import('../confirm.js')]);
        await confirmOrStop(`Refuse invite ${id}?`, o.yes);
        await out.record(await client.put<Invite>(`/invites/${seg(id!)}/refuse`), INVITE_COLUMNS);
      }),
    );
}
