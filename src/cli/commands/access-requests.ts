import type { Command } from 'commander';
import type { ListResult } from '../../shared/schemas/common.js';
import type { AccessRequest } from '../../shared/schemas/membership.js';
import { pageQuery, paginationOptions, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column } from '../output.js';

export const ACCESS_REQUEST_COLUMNS: Column<AccessRequest>[] = [
  { header: 'id', value: (r) => r.id },
  { header: 'page', value: (r) => r.page.name },
  { header: 'user', value: (r) => r.user.nickname },
  { header: 'state', value: (r) => r.state },
  { header: 'created', value: (r) => r.created_at },
];

export function registerAccessRequestCommands(program: Command): void {
  const requests = program.command('access-requests').description('requests to join private pages');

  requests
    .command('create')
    .description('ask to join a page')
    .requiredOption('--page <id>', 'page to join')
    .option('--user <id>', 'the user asking (default: you)')
    .action(
      withContext<{ page: string; user?: string }>(async ({ client, out }, o) => {
        const { CreateAccessRequestInput } = await import('../../shared/schemas/membership.js');
        const user_id = o.user ?? (await client.get<{ id: string }>('/me')).id;
        const body = await validateBody(CreateAccessRequestInput, { page_id: o.page, user_id }, { page_id: '--page', user_id: '--user' });
        await out.record(await client.post<AccessRequest>('/page_access_requests', body), ACCESS_REQUEST_COLUMNS);
      }),
    );

  paginationOptions(
    requests
      .command('list')
      .description('list access requests (yours, and those to pages you administer)')
      .option('--page-id <id>', 'only requests to this page')
      .option('--user <id>', 'only requests by this user')
      .option('--state <state>', 'waiting or accepted'),
  ).action(
    withContext<PageOptions & { pageId?: string; user?: string; state?: string }>(async ({ client, out }, o) => {
      const { seg } = await import('../../client/api-client.js');
      const query = { ...pageQuery(o), user_id: o.user, state: o.state };
      const result = o.pageId
        ? await client.get<ListResult<AccessRequest>>(`/pages/${seg(o.pageId)}/page_access_requests`, query)
        : await client.get<ListResult<AccessRequest>>('/page_access_requests', query);
      await out.list(result, ACCESS_REQUEST_COLUMNS, pageQuery(o));
    }),
  );

  requests
    .command('accept')
    .description('accept a waiting request (page administrators): the user joins the page')
    .argument('<id>', 'access request id')
    .action(
      withContext(async ({ client, out }, _o, [id]) => {
        const { seg } = await import('../../client/api-client.js');
        await out.record(await client.put<AccessRequest>(`/page_access_requests/${seg(id!)}/accept`), ACCESS_REQUEST_COLUMNS);
      }),
    );

  requests
    .command('refuse')
    .description('refuse a waiting request (page administrators): the request is deleted')
    .argument('<id>', 'access request id')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(
      withContext<{ yes?: boolean }>(async ({ client, out }, o, [id]) => {
        const [{ seg }, { confirmOrStop }] = await Promise.all([import('../../client/api-client.js'), import('../confirm.js')]);
        await confirmOrStop(`Refuse and delete access request ${id}?`, o.yes);
        await client.put(`/page_access_requests/${seg(id!)}/refuse`);
        out.done(`Access request ${id} refused and deleted`);
      }),
    );
}
