import type { Command } from 'commander';
import type { ListResult } from '../../shared/schemas/common.js';
import type { PageConfiguration } from '../../shared/schemas/pages.js';
import { pageQuery, paginationOptions, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column } from '../output.js';

const COLUMNS: Column<PageConfiguration>[] = [
  { header: 'id', value: (c) => c.id },
  { header: 'name', value: (c) => c.name },
  { header: 'description', value: (c) => c.description },
];

export function registerPageConfigCommands(program: Command): void {
  const configs = program.command('page-configs').description('page configurations (the kinds of pages)');

  configs
    .command('create')
    .description('create a page configuration (Admins)')
    .requiredOption('--name <name>', 'name')
    .option('--description <text>', 'description')
    .action(
      withContext<{ name: string; description?: string }>(async ({ client, out }, o) => {
        const { CreatePageConfigurationInput } = await import('../../shared/schemas/pages.js');
        const body = { name: o.name, description: o.description };
        await validateBody(CreatePageConfigurationInput, body);
        await out.record(await client.post<PageConfiguration>('/page_configurations', body));
      }),
    );

  paginationOptions(configs.command('list').description('list page configurations')).action(
    withContext<PageOptions>(async ({ client, out }, o) => {
      const result = await client.get<ListResult<PageConfiguration>>('/page_configurations', pageQuery(o));
      await out.list(result, COLUMNS, pageQuery(o));
    }),
  );

  configs
    .command('get')
    .description('show one page configuration')
    .argument('<id>', 'page configuration id')
    .action(
      withContext(async ({ client, out }, _o, [id]) => {
        const { seg } = await import('../../client/api-client.js');
        await out.record(await client.get<PageConfiguration>(`/page_configurations/${seg(id!)}`));
      }),
    );
}
