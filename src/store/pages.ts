import { type ExpressionBuilder, type Kysely, type Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import type { Database, PageConfigurationTable, PageTable } from './schema.js';
import { countOf, offsetOf } from './paging.js';

export type PageRow = Selectable<PageTable>;
export type PageConfigurationRow = Selectable<PageConfigurationTable>;

/** Who is looking: secret pages show only to their members, their creator and project administrators. */
export interface Viewer {
  id: string;
  isAdmin: boolean;
}

export interface PageFilter {
  page_configuration_id?: string;
  owner?: string;
  privacy?: string;
  slug?: string;
}

/** A SQL condition: the page (`pages.id`) is visible to the viewer. */
export function pageVisibleTo(eb: ExpressionBuilder<Database, 'pages'>, viewer: Viewer) {
  return eb.or([
    eb('pages.privacy', '!=', 'secret'),
    eb('pages.user_id', '=', viewer.id),
    eb.exists(
      eb
        .selectFrom('follows')
        .select('follows.id')
        .whereRef('follows.followable_id', '=', 'pages.id')
        .where('follows.followable_type', '=', 'Page')
        .where('follows.user_id', '=', viewer.id),
    ),
  ]);
}

export function pagesRepo(db: Kysely<Database>) {
  const matching = (filter: PageFilter) => {
    let q = db.selectFrom('pages');
    if (filter.page_configuration_id !== undefined)
      q = q.where('pages.page_configuration_id', '=', filter.page_configuration_id);
    if (filter.owner !== undefined) q = q.where('pages.user_id', '=', filter.owner);
    if (filter.privacy !== undefined) q = q.where('pages.privacy', '=', filter.privacy);
    if (filter.slug !== undefined) q = q.where('pages.slug', '=', filter.slug);
    return q;
  };
  const filtered = (filter: PageFilter, viewer: Viewer) =>
    viewer.isAdmin ? matching(filter) : matching(filter).where((eb) => pageVisibleTo(eb, viewer));

  /**
   * How many matching pages the viewer sees. Counting with the visibility condition checks every page
   * one by one; by parts, each part is a whole-table count (which SQLite answers from the b-tree) or an
   * index range: all pages, less the secret ones, plus the secret ones the viewer follows, plus those the
   * viewer created without following them.
   */
  const countVisible = async (filter: PageFilter, viewer: Viewer): Promise<number> => {
    if (viewer.isAdmin || (filter.privacy !== undefined && filter.privacy !== 'secret')) return countOf(matching(filter));
    const followed = db
      .selectFrom('follows')
      .select('follows.followable_id')
      .where('follows.user_id', '=', viewer.id)
      .where('follows.followable_type', '=', 'Page');
    const secret = () => matching(filter).where('pages.privacy', '=', 'secret');
    const onlySecret = filter.privacy === 'secret';
    const [all, allSecret, secretFollowed, secretOwned] = await Promise.all([
      onlySecret ? 0 : countOf(matching(filter)),
      onlySecret ? 0 : countOf(secret()),
      countOf(secret().where('pages.id', 'in', followed)),
      countOf(secret().where('pages.user_id', '=', viewer.id).where('pages.id', 'not in', followed)),
    ]);
    return all - allSecret + secretFollowed + secretOwned;
  };

  return {
    async insert(row: PageRow): Promise<void> {
      await db.insertInto('pages').values(row).execute();
    },
    getById(id: string): Promise<PageRow | undefined> {
      return db.selectFrom('pages').selectAll().where('id', '=', id).executeTakeFirst();
    },
    getByIds(ids: string[]): Promise<PageRow[]> {
      if (ids.length === 0) return Promise.resolve([]);
      return db.selectFrom('pages').selectAll().where('id', 'in', ids).execute();
    },
    async list(filter: PageFilter, viewer: Viewer, page: Pagination): Promise<{ rows: PageRow[]; total: number }> {
      const [rows, total] = await Promise.all([
        filtered(filter, viewer)
          .selectAll('pages')
          .orderBy('pages.id')
          .limit(page.per_page)
          .offset(offsetOf(page))
          .execute(),
        countVisible(filter, viewer),
      ]);
      return { rows, total };
    },
    async slugsStartingWith(base: string): Promise<string[]> {
      const rows = await db
        .selectFrom('pages')
        .select('slug')
        .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
        .execute();
      return rows.map((r) => r.slug);
    },
  };
}
export type PagesRepo = ReturnType<typeof pagesRepo>;

export function pageConfigurationsRepo(db: Kysely<Database>) {
  return {
    async insert(row: PageConfigurationRow): Promise<void> {
      await db.insertInto('page_configurations').values(row).execute();
    },
    getById(id: string): Promise<PageConfigurationRow | undefined> {
      return db.selectFrom('page_configurations').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async list(page: Pagination, filter: { name?: string } = {}): Promise<{ rows: PageConfigurationRow[]; total: number }> {
      const matching = () => {
        const q = db.selectFrom('page_configurations');
        return filter.name === undefined ? q : q.where('name', '=', filter.name);
      };
      const [rows, total] = await Promise.all([
        matching()
          .selectAll()
          .orderBy('id')
          .limit(page.per_page)
          .offset(offsetOf(page))
          .execute(),
        countOf(matching()),
      ]);
      return { rows, total };
    },
  };
}
export type PageConfigurationsRepo = ReturnType<typeof pageConfigurationsRepo>;
