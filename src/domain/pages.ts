import { listByIds } from './by-ids.js';
import { notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { listResult, type ListResult, type Pagination } from '../shared/schemas/common.js';
import type {
  CreatePageConfigurationInput,
  CreatePageInput,
  ListPagesQuery,
  Page,
  PageConfiguration,
  Privacy,
} from '../shared/schemas/pages.js';
import type { PageConfigurationRow, PageRow } from '../store/pages.js';
import type { Viewer } from '../store/visibility.js';
import type { Store } from '../store/store.js';
import { nowIso, viewerOf, type Caller, type Deps } from './context.js';
import { requireActingFor, requireAdmin } from './permissions.js';
import { freeSlug, retryingSlugRace, slugify } from './slugs.js';

export const toPageRecord = (row: PageRow): Page => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  description: row.description,
  privacy: row.privacy as Privacy,
  page_configuration_id: row.page_configuration_id,
  user_id: row.user_id,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export const toPageConfigurationRecord = (row: PageConfigurationRow): PageConfiguration => ({ ...row });

/** A user is in a page when they follow it. */
export async function isMember(store: Store, userId: string, pageId: string): Promise<boolean> {
  return !!(await store.follows.find(userId, 'Page', pageId));
}

/** The page's creator and every project administrator administer it. */
export const administersPage = (caller: Caller, page: PageRow): boolean =>
  caller.isAdmin || page.user_id === caller.user.id;

/**
 * Who may know of a page is written once, in the store (`pages.ts` `visible`: not secret, or created by the
 * viewer, or followed by them, or the viewer is an Admin); single reads and lists both use it.
 */
export async function canSeePage(store: Store, viewer: Viewer, pageId: string): Promise<boolean> {
  return !!(await store.pages.getVisible(pageId, viewer));
}

/** The page, or 404 when it does not exist or is a secret page the viewer is not in. */
export async function findVisiblePage(store: Store, who: Caller | Viewer, pageId: string): Promise<PageRow> {
  const viewer = 'user' in who ? viewerOf(who) : who;
  const page = await store.pages.getVisible(pageId, viewer);
  if (!page) throw notFound('Page');
  return page;
}

export async function createPageConfiguration(
  deps: Deps,
  caller: Caller,
  input: CreatePageConfigurationInput,
): Promise<PageConfiguration> {
  requireAdmin(caller, 'create page configurations');
  const now = nowIso(deps);
  const row: PageConfigurationRow = {
    id: newId(),
    name: input.name,
    description: input.description ?? null,
    created_at: now,
    updated_at: now,
  };
  await deps.store.pageConfigurations.insert(row);
  return toPageConfigurationRecord(row);
}

export async function getPageConfiguration(deps: Deps, id: string): Promise<PageConfiguration> {
  const row = await deps.store.pageConfigurations.getById(id);
  if (!row) throw notFound('Page configuration');
  return toPageConfigurationRecord(row);
}

export async function listPageConfigurations(
  deps: Deps,
  query: Pagination & { name?: string; ids?: string[] },
): Promise<ListResult<PageConfiguration>> {
  if (query.ids) return listByIds(query.ids, query, (id) => getPageConfiguration(deps, id));
  const listed = await deps.store.pageConfigurations.list(query, { name: query.name });
  return listResult(listed.rows.map(toPageConfigurationRecord), listed);
}

/** Creates the page and, in the same transaction, the creator's follow: the creator is in the page from the start. */
export async function createPage(deps: Deps, caller: Caller, input: CreatePageInput): Promise<Page> {
  requireActingFor(caller, input.user_id);
  const base = slugify(input.name, 'page');
  const create = () => deps.store.transaction(async (tx) => {
    const exists = await tx.pages.prerequisites(input.user_id, input.page_configuration_id);
    if (!exists.user) throw notFound('User');
    if (!exists.configuration) throw notFound('Page configuration');
    const now = nowIso(deps);
    const id = newId();
    const page: PageRow = {
      id,
      name: input.name,
      slug: await freeSlug(base, input.privacy === 'secret' ? id : undefined, (prefix) => tx.pages.slugsStartingWith(prefix)),
      description: input.description ?? null,
      privacy: input.privacy,
      page_configuration_id: input.page_configuration_id,
      user_id: input.user_id,
      created_at: now,
      updated_at: now,
    };
    await tx.pages.insert(page);
    await tx.follows.insertIfAbsent({
      id: newId(),
      user_id: input.user_id,
      followable_type: 'Page',
      followable_id: page.id,
      created_at: now,
    });
    return page;
  });
  const row = await retryingSlugRace('pages', create);
  return toPageRecord(row);
}

export async function getPage(deps: Deps, caller: Caller, id: string): Promise<Page> {
  return toPageRecord(await findVisiblePage(deps.store, caller, id));
}

export async function listPages(deps: Deps, caller: Caller, query: ListPagesQuery): Promise<ListResult<Page>> {
  if (query.ids) return listByIds(query.ids, query, (id) => getPage(deps, caller, id));
  const listed = await deps.store.pages.list(
    { page_configuration_id: query.page_configuration_id, owner: query.owner, privacy: query.privacy, slug: query.slug },
    viewerOf(caller),
    query,
  );
  return listResult(listed.rows.map(toPageRecord), listed);
}
