import { sql, type RawBuilder } from 'kysely';
import type { JsonSelection, Selection } from './paging.js';
import type { Viewer } from './pages.js';

/**
 * Records as JSON text written by SQLite itself (`json_object`, which escapes as `JSON.stringify` does), for
 * the lists read straight from its reading connection (`JsonSelection` in `paging.ts`): no row objects, no
 * embedded records read apart and joined in JavaScript, no `JSON.stringify`. Each expression here is the twin
 * of a mapping in `src/domain` and must give its bytes: the same fields in the same order, the same values
 * (`test/api/list-json.test.ts` holds every list that uses one to the single read's answer). A nested
 * `json_object` (or `json(…)`) keeps SQLite's JSON subtype through a scalar subquery, so an embedded record is
 * written as an object, not as a string. SQLite only: PostgreSQL answers rows, mapped by the domain.
 * An access request's or invite's embedded records are always there (foreign keys, ON DELETE CASCADE): were one
 * missing, the text would carry null where the domain's mapping (`loadEmbeds`) throws. A follow's followable has
 * no foreign key (a page or a user): missing, it is null in both.
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

/** The record of the page whose id is the column `ref`, or null. */
export const pageJsonById = (ref: string): RawBuilder<string> =>
  sql<string>`(select ${pageJson('embedded_page')} from pages as embedded_page where embedded_page.id = ${sql.ref(ref)})`;

/**
 * The record of a user row (`u`) with its role (`role`) as `toUserRecord` (`src/domain/users.ts`) gives it,
 * with or without the email.
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
 * The record of the user whose id is the column `ref`, or null, as `viewer` may see it: the email shown to the
 * user themself and to administrators. `viewer` is the viewer's id as an SQL value, or `'admin'`.
 */
export const userJsonById = (ref: string, viewer: RawBuilder<unknown> | 'admin'): RawBuilder<string> => {
  const record =
    viewer === 'admin' ? userJson(true) : sql`case when embedded_user.id = ${viewer} then ${userJson(true)} else ${userJson(false)} end`;
  return sql<string>`(select ${record} from users as embedded_user
    join permission_sets as embedded_role on embedded_role.id = embedded_user.permission_set_id
    where embedded_user.id = ${sql.ref(ref)})`;
};

/** An access request's record (`toRecords` in `src/domain/access-requests.ts`), of the row aliased `r`. */
export const accessRequestJson = (viewer: RawBuilder<unknown> | 'admin'): RawBuilder<string> => {
  const r = column('r');
  return object([
    ['id', r('id')],
    ['page_id', r('page_id')],
    ['user_id', r('user_id')],
    ['page', pageJsonById('r.page_id')],
    ['user', userJsonById('r.user_id', viewer)],
    ['is_validate', bool(sql`${r('is_validate')} = 1`)],
    ['state', r('state')],
    ['created_at', r('created_at')],
    ['updated_at', r('updated_at')],
  ]);
};

/** An invite's record (`toRecords` in `src/domain/invites.ts`), of the row aliased `i`. */
export const inviteJson = (viewer: RawBuilder<unknown> | 'admin'): RawBuilder<string> => {
  const i = column('i');
  return object([
    ['id', i('id')],
    // Pages are the only targets.
    ['target_type', sql.lit('Page')],
    ['target_id', i('target_id')],
    ['user_id', i('user_id')],
    ['user_target_id', i('user_target_id')],
    ['user', userJsonById('i.user_id', viewer)],
    ['user_target', userJsonById('i.user_target_id', viewer)],
    ['target', pageJsonById('i.target_id')],
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
export const followJson = (viewer: RawBuilder<unknown> | 'admin'): RawBuilder<string> => {
  const f = column('follows');
  return object([
    ['id', f('id')],
    ['user_id', f('user_id')],
    ['followable_type', f('followable_type')],
    ['followable_id', f('followable_id')],
    [
      'followable',
      sql`case when ${f('followable_type')} = 'Page' then ${pageJsonById('follows.followable_id')} else ${userJsonById('follows.followable_id', viewer)} end`,
    ],
    ['created_at', f('created_at')],
  ]);
};

/**
 * A list's JSON selection for this viewer: an administrator's (every email shown), or a Member's, whose own
 * email alone shows (the viewer's id is the selection's parameter).
 */
export const jsonSelectionFor = (viewer: Viewer, toAdmins: Selection, toMembers: Selection): JsonSelection =>
  viewer.isAdmin ? { select: toAdmins } : { select: toMembers, args: [viewer.id] };

/**
 * An event's record (`toEventRecord` in `src/domain/events.ts`), of the row of `events`. Its tickets are kept
 * as the JSON text `JSON.stringify` wrote (an array of objects of strings), which `json(…)` embeds as it is.
 */
export const eventJson = (): RawBuilder<string> => {
  const e = column('events');
  return object([
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
  ]);
};
