import type { Command } from 'commander';
import type { ListResult } from '../../shared/schemas/common.js';
import type { Page, PageConfiguration } from '../../shared/schemas/pages.js';
import { enumOption, examples, paginationOptions, showList, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column, RecordView } from '../output.js';

export const PRIVACIES = ['public', 'private', 'secret'];

export const PAGE_COLUMNS: Column<Page>[] = [
  { header: 'id', value: (p) => p.id, id: true },
  { header: 'name', value: (p) => p.name },
  { header: 'slug', value: (p) => p.slug },
  { header: 'privacy', value: (p) => p.privacy },
  { header: 'config', name: ['config', (p) => p.page_configuration_id] },
  { header: 'owner', name: ['user', (p) => p.user_id] },
];

export const PAGE_VIEW: RecordView<Page> = {
  names: { page_configuration_id: ['configuration', 'config'], user_id: ['owner', 'user'] },
};

interface CreateOptions {
  name?: string;
  config?: string;
  privacy?: string;
  user?: string;
  description?: string;
}

/** The page configurations to pick from on a terminal. */
export const configChoices = (client: { get<T>(p: string, q?: object): Promise<T> }) => async () =>
  (await client.get<ListResult<PageConfiguration>>('/page_configurations', { per_page: 100 })).items.map((c) => ({
    name: c.name,
    value: c.id,
  }));

export function registerPageCommands(program: Command): void {
  const pages = program.command('pages').description('pages gathering users around a sub-entity');

  examples(
    pages
      .command('create')
      .description('create a page; its creator follows and administers it (missing values are asked for on a terminal)')
      .option('--name <name>', 'page name (required)')
      .option('--config <config>', 'page configuration: id or name (required)')
      .addOption(enumOption('--privacy <privacy>', 'who sees the page (required)', PRIVACIES))
      .option('--user <user>', 'creating user: id or nickname (default: you)')
      .option('--description <text>', 'description'),
    'agora pages create --name "Book Circle" --config Community --privacy private',
    'agora pages create          # on a terminal: asks for the name, a configuration and the privacy',
  ).action(
    withContext<CreateOptions>(async ({ client, out, names }, o) => {
      const [{ CreatePageInput }, { askMissing, fieldCheck }] = await Promise.all([
        import('../../shared/schemas/pages.js'),
        import('../prompts.js'),
      ]);
      const values = await askMissing(
        { name: o.name, config: o.config, privacy: o.privacy },
        {
          name: { flag: '--name', message: 'Page name', check: fieldCheck(CreatePageInput.shape.name) },
          config: { flag: '--config', message: 'Page configuration', choices: configChoices(client) },
          privacy: { flag: '--privacy', message: 'Privacy', choices: PRIVACIES },
        },
      );
      const body = {
        name: values.name,
        page_configuration_id: values.config,
        privacy: values.privacy,
        user_id: o.user ?? 'me',
        description: o.description,
      };
      // Options are checked before any request, so a bad one is a usage error even when the server is away.
      await validateBody(CreatePageInput, body, { page_configuration_id: '--config', user_id: '--user' });
      body.page_configuration_id = await names.resolve('config', values.config!);
      body.user_id = o.user ? await names.resolve('user', o.user) : (await client.get<{ id: string }>('/me')).id;
      await out.record(await client.post<Page>('/pages', body), PAGE_VIEW);
    }),
  );

  examples(
    paginationOptions(
      pages
        .command('list')
        .description('list the pages you can see')
        .option('--config <config>', 'only pages of this page configuration (id or name)')
        .option('--owner <user>', 'only pages created by this user (id or nickname)')
        .addOption(enumOption('--privacy <privacy>', 'only pages of this privacy', PRIVACIES))
        .option('--slug <slug>', 'only the page with exactly this slug'),
    ),
    'agora pages list --privacy private',
    'agora pages list --owner linus --all',
  ).action(
    withContext<PageOptions & { config?: string; owner?: string; privacy?: string; slug?: string }>(async (ctx, o) => {
      const query = {
        page_configuration_id: o.config && (await ctx.names.resolve('config', o.config)),
        owner: o.owner && (await ctx.names.resolve('user', o.owner)),
        privacy: o.privacy,
        slug: o.slug,
      };
      await showList(ctx, '/pages', query, PAGE_COLUMNS, o);
    }),
  );

  examples(pages.command('get').description('show one page').argument('<page>', 'page id or slug'), 'agora pages get book-circle').action(
    withContext(async ({ client, out, names }, _o, [ref]) => {
      const { seg } = await import('../../client/api-client.js');
      const id = await names.resolve('page', ref!);
      await out.record(await client.get<Page>(`/pages/${seg(id)}`), PAGE_VIEW);
    }),
  );
}
