import { z } from 'zod';
import {
  Id,
  idInput,
  idsQuery,
  listOf,
  optionalText,
  PaginationQuery,
  queryEnum,
  queryText,
  text,
  Timestamp,
  typeError,
} from './common.js';
import { examplePage, examplePageConfiguration } from './examples.js';

export const PRIVACIES = ['public', 'private', 'secret'] as const;
export type Privacy = (typeof PRIVACIES)[number];

export const CreatePageConfigurationInput = z.object({
  name: text(100),
  description: optionalText(2000),
}).meta({ id: 'CreatePageConfigurationInput', examples: [{ name: 'Clubs', description: 'Local clubs' }] });
export type CreatePageConfigurationInput = z.infer<typeof CreatePageConfigurationInput>;

export const PageConfigurationSchema = z.object({
  id: Id,
  name: z.string(),
  description: z.string().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
}).meta({ id: 'PageConfiguration', examples: [examplePageConfiguration] });
export type PageConfiguration = z.infer<typeof PageConfigurationSchema>;
export const PageConfigurationListSchema = listOf(PageConfigurationSchema);
export const ListPageConfigurationsQuery = PaginationQuery.extend({ name: queryText, ids: idsQuery });
export type ListPageConfigurationsQuery = z.infer<typeof ListPageConfigurationsQuery>;

export const CreatePageInput = z.object({
  name: text(150),
  page_configuration_id: idInput,
  privacy: z.enum(PRIVACIES, typeError(`one of: ${PRIVACIES.join(', ')}`)),
  user_id: idInput,
  description: optionalText(5000),
}).meta({
  id: 'CreatePageInput',
  examples: [
    { name: 'Chess club', page_configuration_id: examplePage.page_configuration_id, privacy: 'private', user_id: examplePage.user_id, description: 'Thursdays at eight' },
  ],
});
export type CreatePageInput = z.infer<typeof CreatePageInput>;

export const ListPagesQuery = PaginationQuery.extend({
  page_configuration_id: queryText,
  owner: queryText,
  privacy: queryEnum('privacy', PRIVACIES),
  slug: queryText,
  ids: idsQuery,
});
export type ListPagesQuery = z.infer<typeof ListPagesQuery>;

export const PageSchema = z.object({
  id: Id,
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  privacy: z.enum(PRIVACIES),
  page_configuration_id: Id,
  user_id: Id.describe('The creator, who administers the page'),
  created_at: Timestamp,
  updated_at: Timestamp,
}).meta({ id: 'Page', examples: [examplePage] });
export type Page = z.infer<typeof PageSchema>;
export const PageListSchema = listOf(PageSchema);
