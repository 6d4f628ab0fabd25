import { sql, type ExpressionBuilder, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import { lookalikeKey, nameKey as nicknameKey } from '../shared/latin-lookalikes.js';
import type { Pagination } from '../shared/schemas/common.js';
import { chunks, holder, slugsStartingWith } from './rows.js';
import type { Database } from './schema.js';
import { SYSTEM_ROLES } from './default-roles.js';
import { suspendedAt } from './visibility.js';
import { counted, counterKey, kept, listPage, type AnyDb, type AnyQuery, type Embeds, type Listed, type Selection } from './paging.js';

/** A user as read: never their password's hash, which nothing reads back. */
export type UserRow = Omit<Selectable<Database['users']>, 'password_hash' | 'nickname_key' | 'nickname_skeleton'>;
const USER_COLUMNS = [
  'id', 'first_name', 'last_name', 'nickname', 'email', 'permission_set_id', 'slug',
  'conditions_accepted_at', 'confidentiality_accepted_at', 'created_at', 'updated_at',
] as const satisfies readonly (keyof UserRow)[];
const ROLE_COLUMNS = ['name', 'system_key', 'show_as_tagline', 'image_url'] as const;
const SUSPENSION_COLUMNS = ['reason', 'until', 'created_at', 'created_by'] as const;
/** A user with the role's fields records show, and their suspension if kept (in force or past; not always read). */
export type UserWithRole = UserRow & { [C in (typeof ROLE_COLUMNS)[number] as `role_${C}`]: Database['permission_sets'][C] } & {
  [C in (typeof SUSPENSION_COLUMNS)[number] as `suspension_${C}`]?: Database['suspensions'][C] | null;
};

/** `role`: a permission set id; `suspended`: only those suspended at `now` (true), or only those not (false). */
export type UserFilter = Partial<Record<'nickname' | 'role', string>> & { suspended?: { now: string; is: boolean } };

/** What a user row selects, from the tables under the given names, each column prefixed by `prefix`. */
const userColumns = (user: string, role: string, suspension: string, prefix = '') => [
  ...USER_COLUMNS.map((column) => `${user}.${column} as ${prefix}${column}`),
  ...ROLE_COLUMNS.map((column) => `${role}.${column} as ${prefix}role_${column}`),
  ...SUSPENSION_COLUMNS.map((column) => `${suspension}.${column} as ${prefix}suspension_${column}`),
];

const joinRole: Selection = (q) =>
  q
    .innerJoin('permission_sets', 'permission_sets.id', 'users.permission_set_id')
    .leftJoin('suspensions', 'suspensions.user_id', 'users.id')
    .select(userColumns('users', 'permission_sets', 'suspensions'));
/** Not suspended at `now`. */
const notSuspended = (now: string) => (eb: ExpressionBuilder<Database, 'users'>) =>
  eb.not(eb.exists(suspendedAt(eb, now).select('su.user_id').whereRef('su.user_id', '=', 'users.id')));

/** A list's rows with the user whose id is in `on`, as the row `as`: the same user row as `getById` reads. */
export const embedUser = (query: AnyQuery, on: string, as: string): AnyQuery =>
  query
    .leftJoin(`users as ${as}`, `${as}.id`, on)
    .leftJoin(`permission_sets as ${as}_role`, `${as}_role.id`, `${as}.permission_set_id`)
    .leftJoin(`suspensions as ${as}_suspension`, `${as}_suspension.user_id`, `${as}.id`)
    .select(userColumns(as, `${as}_role`, `${as}_suspension`, `${as}__`));

/** A list's rows with the user each names in `user_id` (a status's author, an attendee), as `user`. */
export const withUser: Embeds = (query, rows) => embedUser(query, `${rows}.user_id`, 'user');
/** A row as a list that embeds its user reads it. */
export type WithUser<Row> = Row & { user?: UserWithRole };

export function usersRepo(db: Kysely<Database>) {
  const withRole = () => joinRole(db.selectFrom('users')) as SelectQueryBuilder<Database, 'users' | 'permission_sets' | 'suspensions', UserWithRole>;

  return {
    async insert(row: Omit<Selectable<Database['users']>, 'nickname_key' | 'nickname_skeleton'>): Promise<void> {
      await db
        .insertInto('users')
        .values({ ...row, nickname_key: nicknameKey(row.nickname), nickname_skeleton: lookalikeKey(row.nickname) })
        .execute();
    },
    getById(id: string): Promise<UserWithRole | undefined> {
      return withRole().where('users.id', '=', id).executeTakeFirst();
    },
    /** Holds the user's row until the transaction ends (PostgreSQL): `write` before a change that depends on a read. */
    hold: holder(db, 'users'),
    /** The user with their role's permissions (JSON), in one query: what every request needs of its caller. */
    getWithPermissions(id: string): Promise<(UserWithRole & { role_permissions: string }) | undefined> {
      return withRole().select('permission_sets.permissions as role_permissions').where('users.id', '=', id).executeTakeFirst();
    },
    /** The users of `ids` found, a statement for each `chunks` of them (an offline key list names every owner). */
    async getByIds(ids: string[]): Promise<UserWithRole[]> {
      return (await Promise.all(chunks(ids).map((some) => withRole().where('users.id', 'in', some).execute()))).flat();
    },
    /** Taken as it is unique: by a user of the same key, or of a lookalike one (each a unique index). */
    async isNicknameTaken(nickname: string): Promise<boolean> {
      const taken = (eb: ExpressionBuilder<Database, 'users'>) =>
        eb.or([eb('nickname_key', '=', nicknameKey(nickname)), eb('nickname_skeleton', '=', lookalikeKey(nickname))]);
      return (await db.selectFrom('users').select('id').where(taken).executeTakeFirst()) !== undefined;
    },
    /** `role` is a permission set id here: the domain resolves a name first. */
    async list(filter: UserFilter, page: Pagination): Promise<Listed<UserWithRole>> {
      const matching = <Q extends AnyQuery>(q: Q): Q => {
        // Whatever the case (`LINUS` finds linus), as nicknames are unique.
        if (filter.nickname !== undefined) q = q.where('users.nickname_key', '=', nicknameKey(filter.nickname)) as Q;
        return filter.role === undefined ? q : (q.where('users.permission_set_id', '=', filter.role) as Q);
      };
      // The suspended (few) walked on their own table (`suspendedAt`, the one rule), in user id order; counted there.
      // A cross join keeps SQLite from walking the users instead (and sorting) when its statistics say they are few.
      const suspended = filter.suspended && matching(suspendedAt(db as AnyDb, filter.suspended.now).crossJoin('users').whereRef('users.id', '=', 'su.user_id'));
      if (filter.suspended?.is) return listPage<UserWithRole>(db, [{ query: suspended!, keys: ['su.user_id'] }], joinRole, page, counted(suspended!));
      let q = matching(db.selectFrom('users'));
      if (filter.suspended) q = q.where(notSuspended(filter.suspended.now));
      // A nickname names one user at most: counted on its unique index.
      const all = kept([counterKey('users', [filter.role])]);
      const total = filter.nickname !== undefined ? counted(q) : suspended ? sql<number>`(${all} - ${counted(suspended)})` : all;
      return listPage<UserWithRole>(db, [{ query: q, keys: ['users.id'] }], joinRole, page, total);
    },
    /** The next users after `afterId` in id order: an export walks the whole table in constant memory. */
    listAfter(afterId: string | undefined, limit: number): Promise<UserWithRole[]> {
      let q = withRole();
      if (afterId !== undefined) q = q.where('users.id', '>', afterId);
      return q.orderBy('users.id').limit(limit).execute();
    },
    slugsStartingWith: slugsStartingWith(db, 'users'),
    async setRole(userId: string, permissionSetId: string, now: string): Promise<void> {
      await db
        .updateTable('users')
        .set({ permission_set_id: permissionSetId, updated_at: now })
        .where('id', '=', userId)
        .execute();
    },
    /** The project administrators (the system role Admins); with `unsuspendedAt`, those not suspended then. */
    async adminIds(unsuspendedAt?: string): Promise<string[]> {
      let q = db.selectFrom('users').innerJoin('permission_sets', 'permission_sets.id', 'users.permission_set_id').select('users.id');
      q = q.where('permission_sets.system_key', '=', SYSTEM_ROLES.admins);
      if (unsuspendedAt !== undefined) q = q.where(notSuspended(unsuspendedAt));
      return (await q.execute()).map((r) => r.id);
    },
  };
}
