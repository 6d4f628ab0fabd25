import { Option, type Command } from 'commander';
import type { ListResult } from '../../shared/schemas/common.js';
import type { Page } from '../../shared/schemas/pages.js';
import { pageQuery, paginationOptions, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column } from '../output.js';

const PRIVACIES = ['public', 'private', 'secret'];

export const PAGE_COLUMNS: Column<Page>[] = [
  { header: 'id', value: (p) => p.id },
  { header: 'name', value: (p) => p.name },
  { header: 'slug', value: (p) => p.slug },
  { header: 'privacy', value: (p) => p.privacy },
  { header: 'owner', value: (p) => p.user_id },
];

interface CreateOptions {
  name: string;
  config: string;
  privacy: string;
  user?: string;
  description?: string;
}

export function registerPageCommands(program: Command): void {
  const pages = program.command('pages').description('pages gathering users around a sub-entity');

  pages
    .command('create')
    .description('create a page; its creator follows and administers it')
    .requiredOption('--name <name>', 'page name')
    .requiredOption('--config <id>', 'page configuration id')
    .addOption(new Option('--privacy <privacy>', 'who sees the page').choices(PRIVACIES).makeOptionMandatory())
    .option('--user <id>', 'creating user (default: you)')
    .option('--description <text>', 'description')
    .action(
      withContext<CreateOptions>(async ({ client, out }, o) => {
        const { CreatePageInput } = await import('../../shared/schemas/pages.js');
        const body = {
          name: o.name,
          page_configuration_id: o.config,
          privacy: o.privacy,
          user_id: o.user ?? 'me',
          description: o.description,
        };
        // Options are checked before any request, so a bad one is a usage error even when the server is away.
        await validateBody(CreatePageInput, body, { page_configuration_id: '--config', user_id: '--user' });
        body.user_id = o.user ?? (await client.get<{ id: string }>('/me')).id;
        await out.record(await client.post<Page>('/pages', body));
      }),
    );

  paginationOptions(
    pages
      .command('list')
      .description('list the pages you can see')
      .option('--config <id>', 'only pages of this page configuration')
      .option('--owner <id>', 'only pages created by this user')
      .addOption(new Option('--privacy <privacy>', 'only pages of this privacy').choices(PRIVACIES)),
  ).action(
    withContext<PageOptions & { config?: string; owner?: string; privacy?: string }>(async ({ client, out }, o) => {
      const result = await client.get<ListResult<Page>>('/pages', {
        ...pageQuery(o),
        page_configuration_id: o.config,
        owner: o.owner,
        privacy: o.privacy,
      });
      await out.list(result, PAGE_COLUMNS, pageQuery(o));
    }),
  );

  pages
    .command('get')
    .description('show one page')
    .argument('<id>', 'page id')
    .action(
      withContext(async ({ client, out }, _o, [id]) => {
        const { seg } = await import('../../client/api-client.js');
        await out.record(await client.get<Page>(`/pages/${seg(id!)}`));
      }),
    );
}
