import { type Kysely, type Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import { roleNameKey } from '../shared/schemas/roles.js';
import type { Database } from './schema.js';
import { everyRow, counted, counterKey, kept, listPage, type Listed, type Selection } from './paging.js';
import { byId, deleter, inserter } from './rows.js';
import type { Dialect } from './dialect.js';

export type PermissionSetRow = Selectable<Database['permission_sets']>;
export type IdempotencyRow = Selectable<Database['idempotency_keys']>;

/** Permission sets (roles). */
export function permissionSetsRepo(db: Kysely<Database>, dialect: Dialect) {
  const getById = byId(db, 'permission_sets');
  const list = () => db.selectFrom('permission_sets').selectAll().orderBy('id').execute();
  return {
    getById,
    /**
     * Locked until the transaction ends (PostgreSQL; SQLite's writer holds the only lock): `share` while a user is
     * given it (so it cannot be deleted), `update` to delete it or to count its holders before taking it from one.
     */
    getLocked(id: string, mode: 'share' | 'update'): Promise<PermissionSetRow | undefined> {
      const q = db.selectFrom('permission_sets').selectAll().where('id', '=', id);
      if (dialect !== 'postgres') return q.executeTakeFirst();
      return (mode === 'share' ? q.forShare() : q.forUpdate()).executeTakeFirst();
    },
    getBySystemKey(key: string): Promise<PermissionSetRow | undefined> {
      return db.selectFrom('permission_sets').selectAll().where('system_key', '=', key).executeTakeFirst();
    },
    /**
     * By id, or by name as names are unique (`roleNameKey`: NFKC, whatever the case, beyond ASCII too): the engines'
     * `lower` folds ASCII only (SQLite's, and PostgreSQL's under the column's "C" collation), so the few roles are
     * compared here.
     */
    async findByRef(ref: string): Promise<PermissionSetRow | undefined> {
      return (await getById(ref)) ?? (await list()).find((set) => roleNameKey(set.name) === roleNameKey(ref));
    },
    list,
    page: everyRow(db, 'permission_sets'),
    insert: inserter(db, 'permission_sets'),
    async update(id: string, changes: Partial<Omit<PermissionSetRow, 'id'>>): Promise<void> {
      await db.updateTable('permission_sets').set(changes).where('id', '=', id).execute();
    },
    delete: deleter(db, 'permission_sets'),
  };
}

/** API key pairs; the secret is only ever stored as a scrypt hash. */
const API_KEY_COLUMNS = ['id', 'user_id', 'api_key', 'created_at', 'last_used_at'] as const;
const selectApiKeys: Selection = (q) => q.select(API_KEY_COLUMNS.map((c) => `api_keys.${c}` as const));

export function apiKeysRepo(db: Kysely<Database>) {
  return {
    insert: inserter(db, 'api_keys'),
    async findSecretHash(apiKey: string): Promise<{ id: string; user_id: string; secret_hash: string } | undefined> {
      return db
        .selectFrom('api_keys')
        .select(['id', 'user_id', 'secret_hash'])
        .where('api_key', '=', apiKey)
        .executeTakeFirst();
    },
    /** A key by its id or by its `api_key` value. */
    findByRef(ref: string): Promise<ApiKeyListed | undefined> {
      return db
        .selectFrom('api_keys')
        .select(API_KEY_COLUMNS)
        .where((eb) => eb.or([eb('id', '=', ref), eb('api_key', '=', ref)]))
        .executeTakeFirst();
    },
    /** Key pairs in id order. */
    list(filter: { user_id?: string }, page: Pagination): Promise<Listed<ApiKeyListed>> {
      let query = db.selectFrom('api_keys');
      if (filter.user_id !== undefined) query = query.where('api_keys.user_id', '=', filter.user_id);
      const total = filter.user_id !== undefined ? counted(query) : kept([counterKey('api_keys', [])]);
      return listPage<ApiKeyListed>(db, [{ query, keys: ['api_keys.id'] }], selectApiKeys, page, total);
    },
    async markUsed(id: string, now: string): Promise<void> {
      await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
    },
    delete: deleter(db, 'api_keys'),
  };
}
export type ApiKeyListed = Pick<Selectable<Database['api_keys']>, (typeof API_KEY_COLUMNS)[number]>;

/** `status_code` of a key reserved by a request still acting: its answer is not known yet. */
export const IDEMPOTENCY_PENDING = 0;

/**
 * Responses remembered for `Idempotency-Key`: a request reserves its key with a row first (the primary key decides,
 * across processes), acts, then writes its answer there; a request with the same key meanwhile waits for it.
 */
export function idempotencyRepo(db: Kysely<Database>) {
  const entry = (userId: string, key: string) => ({ user_id: userId, idempotency_key: key });
  /** The key's reservation made at `reservedAt`, if still waiting for its answer. */
  const reservation = (userId: string, key: string, reservedAt: string) => ({ ...entry(userId, key), status_code: IDEMPOTENCY_PENDING, created_at: reservedAt });
  return {
    get(userId: string, key: string): Promise<IdempotencyRow | undefined> {
      return db.selectFrom('idempotency_keys').selectAll().where((eb) => eb.and(entry(userId, key))).executeTakeFirst();
    },
    /** Takes the key for a request about to act; false when another request has it (acting, or answered). */
    async reserve(row: Pick<IdempotencyRow, 'user_id' | 'idempotency_key' | 'request_hash' | 'created_at'>): Promise<boolean> {
      const inserted = await db
        .insertInto('idempotency_keys')
        .values({ ...row, status_code: IDEMPOTENCY_PENDING, response_body: '' })
        .onConflict((oc) => oc.columns(['user_id', 'idempotency_key']).doNothing())
        .returning('user_id')
        .executeTakeFirst();
      return !!inserted;
    },
    /** Takes over a reservation whose process died, if still the one seen (`reservedAt`); false if another did. */
    async takeOver(userId: string, key: string, reservedAt: string, now: string, requestHash: string): Promise<boolean> {
      const result = await db
        .updateTable('idempotency_keys')
        .set({ created_at: now, request_hash: requestHash })
        .where((eb) => eb.and(reservation(userId, key, reservedAt)))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    /** Writes the answer of the request holding the reservation made at `reservedAt`. */
    async complete(userId: string, key: string, reservedAt: string, statusCode: number, responseBody: string): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set({ status_code: statusCode, response_body: responseBody })
        .where((eb) => eb.and(reservation(userId, key, reservedAt)))
        .execute();
    },
    /** Gives a reservation back (the request failed: the key may be used again). */
    async release(userId: string, key: string, reservedAt: string): Promise<void> {
      await db.deleteFrom('idempotency_keys').where((eb) => eb.and(reservation(userId, key, reservedAt))).execute();
    },
    /** Forgets one key's entry if it was made before `createdAt` (expired). */
    async forgetBefore(userId: string, key: string, createdAt: string): Promise<void> {
      await db.deleteFrom('idempotency_keys').where((eb) => eb.and(entry(userId, key))).where('created_at', '<', createdAt).execute();
    },
    async purgeBefore(createdAt: string): Promise<void> {
      await db.deleteFrom('idempotency_keys').where('created_at', '<', createdAt).execute();
    },
  };
}
