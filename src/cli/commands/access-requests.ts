import type { Command } from 'commander';
import type { AccessRequest } from '../../shared/schemas/membership.js';
import { enumOption, doneRecord, eachRecord, examples, fetchList, idsFrom, paginationOptions, showList, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column, RecordView } from '../output.js';

export const ACCESS_REQUEST_STATES = ['waiting', 'accepted'];

export const ACCESS_REQUEST_COLUMNS: Column<AccessRequest>[] = [
  { header: 'id', value: (r) => r.id, id: true },
  { header: 'page', value: (r) => r.page.name },
  { header: 'user', value: (r) => r.user.nickname },
  { header: 'state', value: (r) => r.state },
  { header: 'created', value: (r) => r.created_at },
];

export const ACCESS_REQUEST_VIEW: RecordView<AccessRequest> = {};

export function registerAccessRequestCommands(program: Command): void {
  const requests = program.command('access-requests').description('requests to join private pages');

  examples(
    requests
      .command('create')
      .description('ask to join a page (the page is asked for on a terminal when missing)')
      .option('--page-id <page>', 'page to join: id or slug (required)')
      .option('--user <user>', 'the user asking: id or nickname (default: you)'),
    'agora access-requests create --page-id book-circle',
    'agora access-requests create --page-id book-circle --user linus',
  ).action(
    withContext<{ pageId?: string; user?: string }>(async ({ client, out, names }, o) => {
      const [{ CreateAccessRequestInput }, { askMissing }] = await Promise.all([
        import('../../shared/schemas/membership.js'),
        import('../prompts.js'),
      ]);
      const { page } = await askMissing({ page: o.pageId }, { page: { flag: '--page-id', message: 'Page (id or slug)' } });
      const user_id = o.user ? await names.resolve('user', o.user) : (await client.get<{ id: string }>('/me')).id;
      const page_id = await names.resolve('page', page!);
      const body = await validateBody(CreateAccessRequestInput, { page_id, user_id }, { page_id: '--page-id', user_id: '--user' });
      await out.record(await client.post<AccessRequest>('/page_access_requests', body), ACCESS_REQUEST_VIEW);
    }),
  );

  examples(
    paginationOptions(
      requests
        .command('list')
        .description('list access requests (yours, and those to pages you administer)')
        .option('--page-id <page>', 'only requests to this page (id or slug)')
        .option('--user <user>', 'only requests by this user (id or nickname)')
        .addOption(enumOption('--state <state>', 'only requests in this state', ACCESS_REQUEST_STATES)),
    ),
    'agora access-requests list --state waiting',
    'agora access-requests list --page-id book-circle --all',
  ).action(
    withContext<PageOptions & { pageId?: string; user?: string; state?: string }>(async (ctx, o) => {
      const { seg } = await import('../../client/api-client.js');
      const query = { user_id: o.user && (await ctx.names.resolve('user', o.user)), state: o.state };
      const path = o.pageId ? `/pages/${seg(await ctx.names.resolve('page', o.pageId))}/page_access_requests` : '/page_access_requests';
      await showList(ctx, path, query, ACCESS_REQUEST_COLUMNS, o);
    }),
  );

  examples(
    requests
      .command('accept')
      .description('accept waiting requests (page administrators): each user joins the page')
      .argument('<id...>', 'access request ids, or - to read them from standard input'),
    'agora access-requests accept 3f2a…',
    "agora access-requests list --state waiting --all --fields id | agora access-requests accept -",
  ).action(
    withContext(async (ctx, _o, args) => {
      const [{ seg }, { ID_LISTS }] = await Promise.all([import('../../client/api-client.js'), import('../names.js')]);
      const ids = await ctx.names.fullIds(ID_LISTS.accessRequest, await idsFrom(args));
      await eachRecord(ctx, ids, (id) => `Access request ${id}`, async (id) =>
        ctx.out.record(await ctx.client.put<AccessRequest>(`/page_access_requests/${seg(id)}/accept`), ACCESS_REQUEST_VIEW),
      );
    }),
  );

  examples(
    requests
      .command('refuse')
      .description('refuse waiting requests (page administrators): each request is deleted')
      .argument('<id...>', 'access request ids, or - to read them from standard input')
      .option('-y, --yes', 'do not ask for confirmation'),
    'agora access-requests refuse 3f2a… --yes',
  ).action(
    withContext<{ yes?: boolean }>(async (ctx, o, args) => {
      const [{ seg }, { confirmOrStop, mayAsk }, { ID_LISTS }] = await Promise.all([
        import('../../client/api-client.js'),
        import('../confirm.js'),
        import('../names.js'),
      ]);
      const ids = await ctx.names.fullIds(ID_LISTS.accessRequest, await idsFrom(args));
      // There is no GET of one request: the waiting ones are read once to name them in the question.
      const waiting =
        mayAsk(o.yes)
          ? (await fetchList<AccessRequest>(ctx.client, '/page_access_requests', { state: 'waiting' }, { perPage: 100, all: true })).items
          : [];
      await eachRecord(ctx, ids, (id) => `Access request ${id}`, async (id) => {
        const request = waiting.find((r) => r.id === id);
        await confirmOrStop(
          request ? `Refuse ${request.user.nickname}'s request to join ${request.page.name}?` : `Refuse access request ${id}?`,
          o.yes,
        );
        await ctx.client.put(`/page_access_requests/${seg(id)}/refuse`);
        ctx.out.done(request ? `Refused ${request.user.nickname}'s request to join ${request.page.name}` : `Access request ${id} refused and deleted`, doneRecord(id, 'refused'));
      });
    }),
  );
}
