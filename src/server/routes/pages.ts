import { IdParams, PageIdParams } from '../../shared/schemas/common.js';
import {
  createPage,
  createPageConfiguration,
  getPage,
  getPageConfiguration,
  listPageConfigurations,
  listPages,
} from '../../domain/pages.js';
import {
  CreatePageConfigurationInput,
  CreatePageInput,
  ListPageConfigurationsQuery,
  ListPagesQuery,
  PageConfigurationListSchema,
  PageConfigurationSchema,
  PageListSchema,
  PageSchema,
} from '../../shared/schemas/pages.js';
import type { RouteContext } from '../context.js';

export function registerPageRoutes({ routes, deps }: RouteContext): void {
  let tag = 'Page configurations';
  routes.add(
    {
      method: 'POST',
      url: '/page_configurations',
      operationId: 'create_page_configuration',
      tag,
      summary: 'Create a page configuration (Admins)',
      body: CreatePageConfigurationInput,
      response: PageConfigurationSchema,
    },
    ({ body, caller }) => createPageConfiguration(deps, caller, body),
  );
  routes.add(
    {
      method: 'GET',
      url: '/page_configurations',
      operationId: 'list_page_configurations',
      tag,
      summary: 'List page configurations',
      query: ListPageConfigurationsQuery,
      response: PageConfigurationListSchema,
    },
    ({ query }) => listPageConfigurations(deps, query),
  );
  routes.add(
    {
      method: 'GET',
      url: '/page_configurations/:id',
      operationId: 'get_page_configuration',
      tag,
      summary: 'Get a page configuration',
      params: IdParams,
      response: PageConfigurationSchema,
    },
    ({ params }) => getPageConfiguration(deps, params.id),
  );

  tag = 'Pages';
  routes.add(
    { method: 'POST', url: '/pages', operationId: 'create_page', tag, summary: 'Create a page', body: CreatePageInput, response: PageSchema },
    ({ body, caller }) => createPage(deps, caller, body),
  );
  routes.add(
    { method: 'GET', url: '/pages', operationId: 'list_pages', tag, summary: 'List pages', query: ListPagesQuery, response: PageListSchema },
    ({ query, caller }) => listPages(deps, caller, query),
  );
  routes.add(
    {
      method: 'GET',
      url: '/pages/:page_id',
      operationId: 'get_page',
      tag,
      summary: 'Get a page',
      params: PageIdParams,
      response: PageSchema,
    },
    ({ params, caller }) => getPage(deps, caller, params.page_id),
  );
}
