import type { Expression, Kysely, Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import type { Database } from './schema.js';
import { notSecretOrSeen, secretPageIdsSeen, visibleTotal, type Viewer } from './visibility.js';
import { counted, counterKey, kept, listPage, type AnyQuery, type Listed, type Selection, type Walk } from './paging.js';
import { byId, inserter, slugsStartingWith } from './rows.js';

export type PageRow = Selectable<Database['pages']>;
const PAGE_COLUMNS = [
  'id', 'name', 'slug', 'description', 'privacy', 'page_configuration_id', 'user_id', 'created_at', 'updated_at',
] as const satisfies readonly (keyof PageRow)[];
// Every column of the table: one left out would be missing from the pages that lists embed.
const everyPageColumn: [Exclude<keyof PageRow, (typeof PAGE_COLUMNS)[number]>] extends [never] ? true : never = true;
void everyPageColumn;

/** A list's rows with the page whose id is in the column `on`, as the row `as` (`Embeds` in paging.ts). */
export const embedPage = (query: AnyQuery, on: string, as: string): AnyQuery =>
  query.leftJoin(`pages as ${as}`, `${as}.id`, on).select(PAGE_COLUMNS.map((column) => `${as}.${column} as ${as}__${column}`));
export type PageConfigurationRow = Selectable<Database['page_configurations']>;

export type PageFilter = Partial<Record<'page_configuration_id' | 'owner' | 'privacy' | 'slug', string>>;

const selectConfigurations: Selection = (q) => q.selectAll('page_configurations');

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
  const count = (filter: PageFilter) => counterKey('pages', [filter.page_configuration_id, filter.owner, filter.privacy]);

  /** The rule of page visibility, for single reads and lists: a secret page only if the Member follows or made it. */
  const visible = (filter: PageFilter, viewer: Viewer) =>
    viewer.isAdmin
      ? matching(filter)
      : matching(filter).where((eb) => notSecretOrSeen(eb, eb('pages.privacy', '!=', 'secret'), 'pages.id', secretPageIdsSeen(viewer.id)));

  /** A list's one walk and its total; a privacy filter walks that privacy alone. */
  const walkAndTotal = (filter: PageFilter, viewer: Viewer): { walk: Walk; total: Expression<number> } => {
    // A slug names one page at most (its unique index): counting its walk reads that one entry.
    const totalOf = (walk: Walk, total: () => Expression<number>) => ({ walk, total: filter.slug !== undefined ? counted(walk.query) : total() });
    if (viewer.isAdmin || filter.privacy === 'public' || filter.privacy === 'private') {
      const walk = { query: matching(filter), keys: ['pages.id'] };
      return totalOf(walk, () => kept([count(filter)]));
    }
    const secretSeen = matching({ ...filter, privacy: 'secret' }).where('pages.id', 'in', secretPageIdsSeen(viewer.id));
    if (filter.privacy === 'secret') return totalOf({ query: secretSeen, keys: ['pages.id'] }, () => counted(secretSeen));
    return totalOf({ query: visible(filter, viewer), keys: ['pages.id'] }, () => visibleTotal(kept([count(filter)]), kept([count({ ...filter, privacy: 'secret' })]), counted(secretSeen)));
  };

  return {
    insert: inserter(db, 'pages'),
    getById: byId(db, 'pages'),
    /** Whether the user and the page configuration a new page names exist: one statement, two key lookups. */
    async prerequisites(userId: string, configurationId: string): Promise<{ user: boolean; configuration: boolean }> {
      const row = await db
        .selectNoFrom((eb) => [
          eb.exists(eb.selectFrom('users').select('users.id').where('users.id', '=', userId)).as('user'),
          eb
            .exists(eb.selectFrom('page_configurations').select('page_configurations.id').where('page_configurations.id', '=', configurationId))
            .as('configuration'),
        ])
        .executeTakeFirstOrThrow();
      // SQLite answers 1 or 0, PostgreSQL true or false.
      return { user: Boolean(Number(row.user)), configuration: Boolean(Number(row.configuration)) };
    },
    /** The page if the viewer may know of it, by the list's rule. */
    getVisible(id: string, viewer: Viewer): Promise<PageRow | undefined> {
      return visible({}, viewer).where('pages.id', '=', id).selectAll().executeTakeFirst();
    },
    getByIds(ids: string[]): Promise<PageRow[]> {
      return ids.length ? db.selectFrom('pages').selectAll().where('id', 'in', ids).execute() : Promise.resolve([]);
    },
    list(filter: PageFilter, viewer: Viewer, page: Pagination): Promise<Listed<PageRow>> {
      const { walk, total } = walkAndTotal(filter, viewer);
      return listPage<PageRow>(db, [walk], (q) => q.selectAll('pages'), page, total);
    },
    slugsStartingWith: slugsStartingWith(db, 'pages'),
  };
}

export function pageConfigurationsRepo(db: Kysely<Database>) {
  return {
    insert: inserter(db, 'page_configurations'),
    getById: byId(db, 'page_configurations'),
    async list(page: Pagination, filter: { name?: string } = {}): Promise<Listed<PageConfigurationRow>> {
      // By name: configurations sharing a name are few (an exact match on the name index).
      const q = db.selectFrom('page_configurations');
      const matching = filter.name === undefined ? q : q.where('page_configurations.name', '=', filter.name);
      const total = filter.name === undefined ? kept([counterKey('page_configurations', [])]) : counted(matching);
      return listPage<PageConfigurationRow>(db, [{ query: matching, keys: ['page_configurations.id'] }], selectConfigurations, page, total);
    },
  };
}
