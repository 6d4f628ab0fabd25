import type { Command } from 'commander';
import type { Invite, InviteCreation } from '../../shared/schemas/membership.js';
import { enumOption, doneRecord, eachRecord, examples, idsFrom, paginationOptions, showList, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column, RecordView } from '../output.js';

export const INVITE_STATES = ['waiting', 'accepted', 'refused'];

export const INVITE_COLUMNS: Column<Invite>[] = [
  { header: 'id', value: (i) => i.id, id: true },
  { header: 'page', value: (i) => i.target.name },
  { header: 'from', value: (i) => i.user.nickname },
  { header: 'to', value: (i) => i.user_target.nickname },
  { header: 'state', value: (i) => i.state },
];

export const INVITE_VIEW: RecordView<Invite> = {};

const collect = (value: string, previous: string[] = []) => [...previous, value];

const describe = (i: Invite) => `${i.user_target.nickname}'s invite to ${i.target.name}`;

export function registerInviteCommands(program: Command): void {
  const invites = program.command('invites').description('invites to join pages');

  examples(
    invites
      .command('create')
      .description('invite users to a page; each is invited or reported with the reason')
      .option('--page-id <page>', 'page to invite to: id or slug (required)')
      .option('--user <user>', 'user to invite: id or nickname (repeat for several; required)', collect)
      .option('--from <user>', 'the inviting user: id or nickname (default: you)'),
    'agora invites create --page-id book-circle --user linus --user grace',
  ).action(
    withContext<{ pageId?: string; user?: string[]; from?: string }>(async ({ client, out, names }, o) => {
      const [{ CreateInvitesInput }, { askMissing }] = await Promise.all([
        import('../../shared/schemas/membership.js'),
        import('../prompts.js'),
      ]);
      const asked = await askMissing(
        { page: o.pageId, users: o.user?.join(',') },
        {
          page: { flag: '--page-id', message: 'Page (id or slug)' },
          users: { flag: '--user', message: 'Users to invite (ids or nicknames, comma-separated)' },
        },
      );
      const given = o.user ?? asked.users!.split(',').map((u) => u.trim()).filter(Boolean);
      const user_id = o.from ? await names.resolve('user', o.from) : (await client.get<{ id: string }>('/me')).id;
      // A user named twice (by nickname and id, say) is invited once, not refused the second time as already invited.
      const resolved = await names.resolveAll('user', given);
      const targets = [...new Set(resolved)];
      const body = await validateBody(
        CreateInvitesInput,
        { target_type: 'Page', target_id: await names.resolve('page', asked.page!), user_id, user_target_ids: targets },
        { target_id: '--page-id', user_id: '--from', user_target_ids: '--user' },
      );
      const result = await client.post<InviteCreation>('/invites', body);
      // Like a bulk import: what could be done is done, and a user left out makes the exit code 1.
      const notInvited = () => new Error(`${result.errors.length} of ${targets.length} users were not invited`);
      if (out.json) {
        out.printJson(result);
        if (result.errors.length > 0) throw notInvited();
        return;
      }
      // One row per user, in the order they were given, named as they were given.
      const order = (user: string) => {
        const at = targets.indexOf(user);
        return at === -1 ? targets.length : at;
      };
      const rows = [
        ...result.success.map((i) => ({ user: i.user_target_id, result: 'invited', invite: i.id })),
        ...result.errors.flatMap((e) => Object.entries(e).map(([user, message]) => ({ user, result: message, invite: '' }))),
      ].sort((a, b) => order(a.user) - order(b.user));
      await out.list({ items: rows, total_items: rows.length }, [
        { header: 'user', value: (r) => given[resolved.indexOf(r.user)] ?? r.user },
        { header: 'result', value: (r) => r.result },
        { header: 'invite', value: (r) => r.invite },
      ]);
      if (result.errors.length > 0) throw notInvited();
    }),
  );

  examples(
    paginationOptions(
      invites
        .command('list')
        .description('list invites')
        .option('--page-id <page>', 'only invites to this page (id or slug)')
        .option('--from <user>', 'only invites sent by this user (id or nickname)')
        .option('--to <user>', 'only invites received by this user (id or nickname)')
        .addOption(enumOption('--state <state>', 'only invites in this state', INVITE_STATES)),
    ),
    'agora invites list --state waiting',
    'agora invites list --page-id book-circle --to linus',
  ).action(
    withContext<PageOptions & { pageId?: string; from?: string; to?: string; state?: string }>(async (ctx, o) => {
      const { seg } = await import('../../client/api-client.js');
      const query = {
        user_id: o.from && (await ctx.names.resolve('user', o.from)),
        user_target_id: o.to && (await ctx.names.resolve('user', o.to)),
        state: o.state,
      };
      const path = o.pageId ? `/pages/${seg(await ctx.names.resolve('page', o.pageId))}/invites` : '/invites';
      await showList(ctx, path, query, INVITE_COLUMNS, o);
    }),
  );

  examples(invites.command('get').description('show one invite').argument('<id>', 'invite id'), 'agora invites get 3f2a…').action(
    withContext(async ({ client, out, names }, _o, args) => {
      const [{ seg }, { ID_LISTS }] = await Promise.all([import('../../client/api-client.js'), import('../names.js')]);
      const [id] = await names.fullIds(ID_LISTS.invite, args);
      await out.record(await client.get<Invite>(`/invites/${seg(id!)}`), INVITE_VIEW);
    }),
  );

  examples(
    invites
      .command('accept')
      .description('accept waiting invites (page administrators): each invited user joins the page')
      .argument('<id...>', 'invite ids, or - to read them from standard input'),
    'agora invites accept 3f2a… 9b1c…',
  ).action(
    withContext(async (ctx, _o, args) => {
      const [{ seg }, { ID_LISTS }] = await Promise.all([import('../../client/api-client.js'), import('../names.js')]);
      const ids = await ctx.names.fullIds(ID_LISTS.invite, await idsFrom(args));
      await eachRecord(ctx, ids, (id) => `Invite ${id}`, async (id) =>
        ctx.out.record(await ctx.client.put<Invite>(`/invites/${seg(id)}/accept`), INVITE_VIEW),
      );
    }),
  );

  for (const [verb, description, method, path, done] of [
    ['refuse', 'refuse waiting invites (page administrators); each is kept as refused', 'PUT', '/refuse', 'Refused'],
    ['withdraw', 'withdraw invites (their sender or a page administrator): each is deleted', 'DELETE', '', 'Withdrew'],
  ] as const) {
    examples(
      invites
        .command(verb)
        .description(description)
        .argument('<id...>', 'invite ids, or - to read them from standard input')
        .option('-y, --yes', 'do not ask for confirmation'),
      `agora invites ${verb} 3f2a… --yes`,
    ).action(
      withContext<{ yes?: boolean }>(async (ctx, o, args) => {
        const { client, out, names } = ctx;
        const [{ seg }, { confirmOrStop, mayAsk }, { ID_LISTS }] = await Promise.all([
          import('../../client/api-client.js'),
          import('../confirm.js'),
          import('../names.js'),
        ]);
        const ids = await names.fullIds(ID_LISTS.invite, await idsFrom(args));
        await eachRecord(ctx, ids, (id) => `Invite ${id}`, async (id) => {
          const invite = mayAsk(o.yes) ? await client.get<Invite>(`/invites/${seg(id)}`) : undefined;
          await confirmOrStop(`${verb[0]!.toUpperCase()}${verb.slice(1)} ${invite ? describe(invite) : `invite ${id}`}?`, o.yes);
          const result = await client.call<Invite | undefined>(method, `/invites/${seg(id)}${path}`);
          if (result) await out.record(result, INVITE_VIEW);
          else out.done(`${done} ${invite ? describe(invite) : `invite ${id}`}`, doneRecord(id, verb === 'refuse' ? 'refused' : 'withdrawn'));
        });
      }),
    );
  }
}
