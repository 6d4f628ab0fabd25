import { type Kysely, type Selectable, type SelectQueryBuilder, sql } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import type { ApiKeyTable, Database, IdempotencyKeyTable, PermissionSetTable } from './schema.js';
import { counterKey, countOf, offsetOf, type Listed, Pager } from './paging.js';
import type { UserWithRole } from './users.js';

export type PermissionSetRow = Selectable<PermissionSetTable>;
export type IdempotencyRow = Selectable<IdempotencyKeyTable>;

/** Permission sets (roles). */
export function permissionSetsRepo(db: Kysely<Database>, pager: Pager = new Pager()) {
  return {
    getById(id: string): Promise<PermissionSetRow | undefined> {
      return db.selectFrom('permission_sets').selectAll().where('id', '=', id).executeTakeFirst();
    },
    getBySystemKey(key: string): Promise<PermissionSetRow | undefined> {
      return db.selectFrom('permission_sets').selectAll().where('system_key', '=', key).executeTakeFirst();
    },
    /** By id, or by name whatever its case. */
    async findByRef(ref: string): Promise<PermissionSetRow | undefined> {
      const byId = await db.selectFrom('permission_sets').selectAll().where('id', '=', ref).executeTakeFirst();
      return (
        byId ??
        db.selectFrom('permission_sets').selectAll().where(sql`lower(name)`, '=', ref.toLowerCase()).executeTakeFirst()
      );
    },
    list(): Promise<PermissionSetRow[]> {
      return db.selectFrom('permission_sets').selectAll().orderBy('id').execute();
    },
    async page(page: Pagination): Promise<Listed<PermissionSetRow>> {
      const [walked, total] = await Promise.all([
        pager.walk<PermissionSetRow>(
          [{ query: db.selectFrom('permission_sets'), keys: ['permission_sets.id'] }],
          (q) => q.selectAll('permission_sets'),
          page,
        ),
        pager.count(db, counterKey('permission_sets', [])),
      ]);
      return { ...walked, total };
    },
    async insert(row: PermissionSetRow): Promise<void> {
      await db.insertInto('permission_sets').values(row).execute();
    },
    async update(id: string, changes: Partial<Omit<PermissionSetRow, 'id'>>): Promise<void> {
      await db.updateTable('permission_sets').set(changes).where('id', '=', id).execute();
    },
    async delete(id: string): Promise<void> {
      await db.deleteFrom('permission_sets').where('id', '=', id).execute();
    },
  };
}
export type PermissionSetsRepo = ReturnType<typeof permissionSetsRepo>;

export interface ApiKeyOwner {
  secret_hash: string;
  user: UserWithRole;
  permissions: string;
}

/** API key pairs; the secret is only ever stored as a scrypt hash. */
export function apiKeysRepo(db: Kysely<Database>) {
  const listed = () =>
    db.selectFrom('api_keys').select(['id', 'user_id', 'api_key', 'created_at', 'last_used_at']);
  return {
    async insert(row: { id: string; user_id: string; api_key: string; secret_hash: string; created_at: string }) {
      await db.insertInto('api_keys').values(row).execute();
    },
    async findSecretHash(apiKey: string): Promise<{ id: string; user_id: string; secret_hash: string } | undefined> {
      return db
        .selectFrom('api_keys')
        .select(['id', 'user_id', 'secret_hash'])
        .where('api_key', '=', apiKey)
        .executeTakeFirst();
    },
    /** A key by its id or by its `api_key` value. */
    findByRef(ref: string): Promise<ApiKeyListed | undefined> {
      return listed()
        .where((eb) => eb.or([eb('id', '=', ref), eb('api_key', '=', ref)]))
        .executeTakeFirst();
    },
    async list(filter: { user_id?: string }, page: Pagination): Promise<{ rows: ApiKeyListed[]; total: number }> {
      const filtered = <Q extends SelectQueryBuilder<Database, 'api_keys', object>>(q: Q): Q =>
        filter.user_id === undefined ? q : (q.where('user_id', '=', filter.user_id) as Q);
      const [rows, total] = await Promise.all([
        filtered(listed()).orderBy('id').limit(page.per_page).offset(offsetOf(page)).execute(),
        countOf(filtered(db.selectFrom('api_keys'))),
      ]);
      return { rows, total };
    },
    async markUsed(id: string, now: string): Promise<void> {
      await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
    },
    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('api_keys').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
  };
}
export type ApiKeyListed = Pick<Selectable<ApiKeyTable>, 'id' | 'user_id' | 'api_key' | 'created_at' | 'last_used_at'>;
export type ApiKeysRepo = ReturnType<typeof apiKeysRepo>;

/** Responses remembered for `Idempotency-Key`. */
export function idempotencyRepo(db: Kysely<Database>) {
  return {
    get(userId: string, key: string): Promise<IdempotencyRow | undefined> {
      return db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('user_id', '=', userId)
        .where('idempotency_key', '=', key)
        .executeTakeFirst();
    },
    /** Keeps the first response when two requests race with the same key. */
    async put(row: IdempotencyRow): Promise<void> {
      await db
        .insertInto('idempotency_keys')
        .values(row)
        .onConflict((oc) => oc.columns(['user_id', 'idempotency_key']).doNothing())
        .execute();
    },
    async purgeBefore(createdAt: string): Promise<void> {
      await db.deleteFrom('idempotency_keys').where('created_at', '<', createdAt).execute();
    },
  };
}
export type IdempotencyRepo = ReturnType<typeof idempotencyRepo>;
