import type { Command } from 'commander';
import type { PageConfiguration } from '../../shared/schemas/pages.js';
import { examples, paginationOptions, showList, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column } from '../output.js';

const COLUMNS: Column<PageConfiguration>[] = [
  { header: 'id', value: (c) => c.id, id: true },
  { header: 'name', value: (c) => c.name },
  { header: 'description', value: (c) => c.description },
];

export function registerPageConfigCommands(program: Command): void {
  const configs = program.command('page-configs').description('page configurations (the kinds of pages)');

  examples(
    configs
      .command('create')
      .description('create a page configuration (Admins); the name is asked for on a terminal when missing')
      .option('--name <name>', 'name (required)')
      .option('--description <text>', 'description'),
    'agora page-configs create --name Community --description "Pages of local groups"',
  ).action(
    withContext<{ name?: string; description?: string }>(async ({ client, out }, o) => {
      const [{ CreatePageConfigurationInput }, { askMissing, fieldCheck }] = await Promise.all([
        import('../../shared/schemas/pages.js'),
        import('../prompts.js'),
      ]);
      const { name } = await askMissing(
        { name: o.name },
        { name: { flag: '--name', message: 'Name', check: fieldCheck(CreatePageConfigurationInput.shape.name) } },
      );
      const body = { name, description: o.description };
      await validateBody(CreatePageConfigurationInput, body);
      await out.record(await client.post<PageConfiguration>('/page_configurations', body));
    }),
  );

  examples(
    paginationOptions(
      configs.command('list').description('list page configurations').option('--name <name>', 'only those with exactly this name'),
    ),
    'agora page-configs list',
  ).action(
    withContext<PageOptions & { name?: string }>(async (ctx, o) => {
      await showList(ctx, '/page_configurations', { name: o.name }, COLUMNS, o);
    }),
  );

  examples(
    configs.command('get').description('show one page configuration').argument('<config>', 'page configuration id or name'),
    'agora page-configs get Community',
  ).action(
    withContext(async ({ client, out, names }, _o, [ref]) => {
      const { seg } = await import('../../client/api-client.js');
      const id = await names.resolve('config', ref!);
      await out.record(await client.get<PageConfiguration>(`/page_configurations/${seg(id)}`));
    }),
  );
}
