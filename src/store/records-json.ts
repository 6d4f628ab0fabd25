import { sql, type RawBuilder } from 'kysely';
import type { Layout } from './embedded.js';
import type { JsonSelection, Selection } from './paging.js';
import type { Viewer } from './pages.js';

/**
 * Records as JSON text written by SQLite itself (`json_object`, which escapes as `JSON.stringify` does), for
 * the lists read straight from its reading connection (`JsonSelection` in `paging.ts`): no row objects, no
 * embedded records read apart and joined in JavaScript, no `JSON.stringify`. Each expression here is the twin
 * of a mapping in `src/domain` and must give its bytes: the same fields in the same order, the same values
 * (`test/api/list-json.test.ts` holds every list that uses one to the single read's answer). A nested
 * `json_object` (or `json(…)`) keeps SQLite's JSON subtype, so a nested record is written as an object, not as
 * a string. SQLite only: PostgreSQL answers rows, mapped by the domain.
 * A record that embeds users or pages (an access request, an invite, a follow) is written in parts: its own
 * fields as objects, each embedded record as a reference between them (`Parts`), spliced with the users' and
 * pages' texts kept by `EmbeddedRecords` (`embedded.ts`), which reads those it lacks with `usersJsonByIds` and
 * `pagesJsonByIds`. An access request's or invite's embedded records are always there (foreign keys, ON
 * DELETE CASCADE): were one missing, the text would carry null where the domain's mapping (`loadEmbeds`)
 * throws. A follow's followable has no foreign key (a page or a user): missing, it is null in both.
 */

type Field = readonly [name: string, value: RawBuilder<unknown>];

const object = (fields: readonly Field[]): RawBuilder<string> =>
  sql<string>`json_object(${sql.join(fields.map(([name, value]) => sql`${sql.lit(name)}, ${value}`))})`;

/** A column of the row aliased `alias`. */
const column = (alias: string) => (name: string): RawBuilder<unknown> => sql.ref(`${alias}.${name}`);

/** `true` or `false` as JSON, as `condition` holds. */
const bool = (condition: RawBuilder<unknown>): RawBuilder<unknown> => sql`case when ${condition} then json('true') else json('false') end`;

/** The fields of `toPageRecord` (`src/domain/pages.ts`), every one a text or null. */
const PAGE_FIELDS = ['id', 'name', 'slug', 'description', 'privacy', 'page_configuration_id', 'user_id', 'created_at', 'updated_at'] as const;

/** The record of the page row aliased `alias` (`toPageRecord`). */
export const pageJson = (alias: string): RawBuilder<string> => {
  const c = column(alias);
  return object(PAGE_FIELDS.map((f) => [f, c(f)] as const));
};

/**
 * The record of a user row (`embedded_user`) with its role (`embedded_role`) as `toUserRecord`
 * (`src/domain/users.ts`) gives it, with or without the email.
 */
const userJson = (withEmail: boolean): RawBuilder<string> => {
  const u = column('embedded_user');
  const role = column('embedded_role');
  const fullname = sql`${u('first_name')} || ' ' || ${u('last_name')}`;
  return object([
    ['id', u('id')],
    ['first_name', u('first_name')],
    ['last_name', u('last_name')],
    ['nickname', u('nickname')],
    ['name', fullname],
    ['fullname', fullname],
    ['slug', u('slug')],
    ...(withEmail ? ([['email', u('email')]] as const) : []),
    ['permission_set_id', u('permission_set_id')],
    ['tagline', sql`case when ${role('show_as_tagline')} then ${object([['name', role('name')], ['image_url', role('image_url')]])} end`],
    ['created_at', u('created_at')],
    ['updated_at', u('updated_at')],
  ]);
};

/**
 * The users among the ids in `ids` (a JSON array): each one's reference (`U` + id, as `userRef` writes it) and
 * record with and without the email (`EmbeddedReads.users`).
 */
export const usersJsonByIds = (ids: RawBuilder<unknown>): RawBuilder<unknown> =>
  sql`select 'U' || embedded_user.id, ${userJson(true)}, ${userJson(false)} from users as embedded_user
    join permission_sets as embedded_role on embedded_role.id = embedded_user.permission_set_id
    where embedded_user.id in (select value from json_each(${ids}))`;

/** The pages among the ids in `ids` (a JSON array): each one's reference (`P` + id) and record. */
export const pagesJsonByIds = (ids: RawBuilder<unknown>): RawBuilder<unknown> =>
  sql`select 'P' || embedded_page.id, ${pageJson('embedded_page')} from pages as embedded_page
    where embedded_page.id in (select value from json_each(${ids}))`;

/**
 * The versions the kept texts depend on (`EmbeddedRecords`), as SQL that reads them: the users' (users and
 * their roles), the pages', and those of a list's own records kept by id (a follow, an access request, an
 * invite: `RECORDS_VERSION`). A list's page reads them once, in the same statement as its rows (a last row of
 * its own, `JsonSelection.versions`), so as of the same moment.
 */
// Two lookups by key (a third cheaper than a `group_concat` over `name in (…)`).
const USERS_VERSION = `(select v from table_versions where name = 'users') || '.' || (select v from table_versions where name = 'permission_sets')`;
const PAGES_VERSION = `(select v from table_versions where name = 'pages')`;
/**
 * The version of a table's existing records (bumped by their updates and deletes, not by inserts: migrations 0017
 * and 0019).
 */
const RECORDS_VERSION = (table: string) => `(select v from table_versions where name = 'records:${table}')`;

/** A reference to the user whose id is the column `ref`, spliced in by `EmbeddedRecords`. */
const userRef = (ref: string): RawBuilder<unknown> => sql`'U' || ${sql.ref(ref)}`;
/** A reference to the page whose id is the column `ref`. */
const pageRef = (ref: string): RawBuilder<unknown> => sql`'P' || ${sql.ref(ref)}`;

/** A field of a record, or an embedded record under a name, by reference. */
type Part = Field | { embed: string; ref: RawBuilder<unknown> };

/**
 * A record written in parts (`Layout` in `embedded.ts`): each run of its own fields one object, each
 * embedded record a reference between them, spliced together in field order by `EmbeddedRecords`.
 */
export interface Parts {
  columns: RawBuilder<unknown>[];
  layout: Layout;
  /** Whether the record never embeds a user (its users' version is not read). */
  noUsers?: boolean;
  /** Whether the record never embeds a page (the pages' version is not read). */
  noPages?: boolean;
  /** The list's own records kept by id (`KEPT_RECORDS`): their kind, whose version is read too. */
  kept?: KeptKind;
}
const parts = (fields: readonly Part[]): Parts => {
  const columns: RawBuilder<unknown>[] = [];
  const layout: (string | null)[] = [];
  let run: Field[] = [];
  const close = () => {
    if (run.length) {
      columns.push(object(run));
      layout.push(null);
    }
    run = [];
  };
  for (const part of fields) {
    if ('embed' in part) {
      close();
      columns.push(part.ref);
      layout.push(`${JSON.stringify(part.embed)}:`);
    } else run.push(part);
  }
  close();
  return { columns, layout };
};

/**
 * A list's selection of a record's parts, their layout, and the SQL of the versions of the texts they are
 * spliced with (`JsonSelection`): those a record never embeds are not read (`''`).
 */
export const partsSelection = ({ columns, layout, noUsers, noPages, kept }: Parts): { select: Selection; layout: Layout; versions: string; kept?: KeptKind } => ({
  select: (q) => q.select(columns.map((column, k) => column.as(`part${k}`))),
  layout,
  versions: [noUsers ? `''` : USERS_VERSION, noPages ? `''` : PAGES_VERSION, kept ? RECORDS_VERSION(KEPT_RECORDS[kept].table) : `''`].join(` || '/' || `),
  ...(kept ? { kept } : {}),
});

/**
 * A page's record as the pages list gives it (`toPageRecord`), of the row of `pages`: the whole record one
 * reference (the layout's `''`), its text the one the other lists embed, kept by `EmbeddedRecords` while the
 * pages stand still; the page's walk reads its index alone (`pages.id`, the sort key) instead of each row and
 * its nine fields.
 */
export const pageParts = (): Parts => ({ columns: [pageRef('pages.id')], layout: [''], noUsers: true });

/**
 * A user's record as the users list gives it (`toUserRecord`), of the row of `users`: one reference, as
 * `pageParts`, its text the one other lists embed (with the email to administrators and to the user themself).
 */
export const userParts = (): Parts => ({ columns: [userRef('users.id')], layout: [''], noPages: true });

/** An access request's record (`toRecords` in `src/domain/access-requests.ts`), of the row aliased `r`. */
export const accessRequestParts = (): Parts => {
  const r = column('r');
  return parts([
    ['id', r('id')],
    ['page_id', r('page_id')],
    ['user_id', r('user_id')],
    { embed: 'page', ref: pageRef('r.page_id') },
    { embed: 'user', ref: userRef('r.user_id') },
    ['is_validate', bool(sql`${r('is_validate')} = 1`)],
    ['state', r('state')],
    ['created_at', r('created_at')],
    ['updated_at', r('updated_at')],
  ]);
};

/** An invite's record (`toRecords` in `src/domain/invites.ts`), of the row aliased `i`. */
export const inviteParts = (): Parts => {
  const i = column('i');
  return parts([
    ['id', i('id')],
    // Pages are the only targets.
    ['target_type', sql.lit('Page')],
    ['target_id', i('target_id')],
    ['user_id', i('user_id')],
    ['user_target_id', i('user_target_id')],
    { embed: 'user', ref: userRef('i.user_id') },
    { embed: 'user_target', ref: userRef('i.user_target_id') },
    { embed: 'target', ref: pageRef('i.target_id') },
    ['is_accepted', bool(sql`${i('is_accepted')} = 1`)],
    ['is_validate', sql`case when ${i('is_validate')} is null then null else ${bool(sql`${i('is_validate')} = 1`)} end`],
    ['state', i('state')],
    ['created_at', i('created_at')],
    ['updated_at', i('updated_at')],
  ]);
};

/**
 * A follow's record as the follows list gives it (`listFollows` in `src/domain/follows.ts`), of the row of
 * `follows`: the page or user it follows embedded.
 */
export const followParts = (): Parts => {
  const f = column('follows');
  return parts([
    ['id', f('id')],
    ['user_id', f('user_id')],
    ['followable_type', f('followable_type')],
    ['followable_id', f('followable_id')],
    {
      embed: 'followable',
      ref: sql`case when ${f('followable_type')} = 'Page' then ${pageRef('follows.followable_id')} else ${userRef('follows.followable_id')} end`,
    },
    ['created_at', f('created_at')],
  ]);
};

/**
 * An event's record (`toEventRecord` in `src/domain/events.ts`), of the row of `events`: one object of its own
 * fields, kept by id (`KEPT_RECORDS`, migration 0019). Its tickets are kept as the JSON text `JSON.stringify` wrote
 * (an array of objects of strings), which `json(…)` embeds as it is.
 */
export const eventParts = (): Parts => {
  const e = column('events');
  return {
    ...parts([
      ['id', e('id')],
      ['name', e('name')],
      ['slug', e('slug')],
      ['description', e('description')],
      ['user_id', e('user_id')],
      ['page_id', e('page_id')],
      ['start_date', e('start_date')],
      ['end_date', e('end_date')],
      ['places_limit', e('places_limit')],
      ['places_left', sql`case when ${e('places_limit')} is null then null else max(0, ${e('places_limit')} - ${e('attendees_count')}) end`],
      ['attendees_count', e('attendees_count')],
      ['tickets', sql`json(${e('tickets')})`],
      ['created_at', e('created_at')],
      ['updated_at', e('updated_at')],
    ]),
    noUsers: true,
    noPages: true,
  };
};

/** The kinds of a list's own records kept by id (`EmbeddedRecords`): a reference's first letter. */
export type KeptKind = 'F' | 'R' | 'I' | 'E';

/**
 * A list's own records kept by id as their parts, spliced like the users and pages they embed: the table, the
 * alias its parts name, the parts. Kept for the version of the table's existing records, which its updates and
 * deletes bump (migrations 0017 and 0019): an insert adds a record no list has kept yet, so a follow does not
 * retire the follows kept.
 */
export const KEPT_RECORDS: Readonly<Record<KeptKind, { table: string; alias: string; parts: () => Parts }>> = {
  F: { table: 'follows', alias: 'follows', parts: followParts },
  R: { table: 'page_access_requests', alias: 'r', parts: accessRequestParts },
  I: { table: 'invites', alias: 'i', parts: inviteParts },
  E: { table: 'events', alias: 'events', parts: eventParts },
};

/**
 * A list's record kept by id (`KEPT_RECORDS`): the record one reference (`F`, `R`, `I` or `E` + its id), its walk's
 * keys alone read (the record's parts read by id when not kept, `recordsJsonByIds`).
 */
export const keptParts = (kind: KeptKind): Parts => {
  // The versions of the users and pages the record embeds: none read where it embeds none (an event).
  const { noUsers, noPages } = KEPT_RECORDS[kind].parts();
  return {
    columns: [sql`${sql.lit(kind)} || ${sql.ref(`${KEPT_RECORDS[kind].alias}.id`)}`],
    layout: [''],
    kept: kind,
    ...(noUsers ? { noUsers } : {}),
    ...(noPages ? { noPages } : {}),
  };
};

/** The records of kind `kind` among the ids in `ids` (a JSON array): each one's reference, then its parts. */
export const recordsJsonByIds = (kind: KeptKind, ids: RawBuilder<unknown>): RawBuilder<unknown> => {
  const { table, alias, parts } = KEPT_RECORDS[kind];
  const id = sql.ref(`${alias}.id`);
  return sql`select ${sql.lit(kind)} || ${id}, ${sql.join(parts().columns)} from ${sql.table(table)} as ${sql.table(alias)}
    where ${id} in (select value from json_each(${ids}))`;
};

/**
 * A list's JSON selection of a record in parts for this viewer: an administrator (every email shown) or a
 * Member, whose own email alone shows.
 */
export const partsSelectionFor = (viewer: Viewer, selection: ReturnType<typeof partsSelection>): JsonSelection => ({
  ...selection,
  viewer: viewer.isAdmin ? null : viewer.id,
});
