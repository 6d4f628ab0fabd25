import { randomBytes } from 'node:crypto';
import { AppError, ErrorCode, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { SYSTEM_ROLES } from '../store/default-roles.js';
import { isUniqueViolation } from '../store/errors.js';
import type { ApiKey, ListApiKeysQuery } from '../shared/schemas/api-keys.js';
import { listResult, type ListResult } from '../shared/schemas/common.js';
import type { Store } from '../store/store.js';
import { recordAudit } from './audit.js';
import { nowIso, type Caller, type Deps } from './context.js';
import { hashSecret, newApiKey, newApiSecret, verifySecret } from './secrets.js';

export const BOOTSTRAP_NICKNAME = 'admin';

export interface IssuedKey {
  user_id: string;
  api_key: string;
  api_secret: string;
}

/** A user named by id or by nickname (offline commands take either, as every command does). */
export async function userIdOf(deps: Deps, ref: string): Promise<string> {
  if (/^[0-9a-f]{32}$/.test(ref)) return ref;
  const found = await deps.store.users.list({ nickname: ref }, { page: 1, per_page: 1 });
  if (!found.rows[0]) throw new AppError(404, ErrorCode.notFound, `No user with the id or nickname "${ref}"`);
  return found.rows[0].id;
}

/**
 * The bootstrap administrator's id, if it exists: the user named exactly `admin` whose role is Admins (as an export
 * of users skips it). Nicknames are one whatever their case, so the lookup finds whoever holds the nickname: one who
 * only folds to it (`Admin`), or holds it in another role, is refused rather than taken for it (and given its key).
 */
async function bootstrapAdminId(store: Store): Promise<string | undefined> {
  const holder = (await store.users.list({ nickname: BOOTSTRAP_NICKNAME }, { page: 1, per_page: 1 })).rows[0];
  if (!holder) return undefined;
  if (holder.nickname === BOOTSTRAP_NICKNAME && holder.role_system_key === SYSTEM_ROLES.admins) return holder.id;
  const why = holder.nickname === BOOTSTRAP_NICKNAME ? `its role is ${holder.role_name}, not Admins` : `its nickname is ${holder.nickname}`;
  const message = `The user ${holder.nickname} (${holder.id}) holds the nickname ${BOOTSTRAP_NICKNAME} but is not the bootstrap administrator (${why}): rename that user, or give the key another owner`;
  throw new AppError(409, ErrorCode.nicknameTaken, message);
}

/** The bootstrap administrator `admin` (role Admins), created on first need. */
export async function ensureBootstrapAdmin(deps: Deps): Promise<string> {
  const { store } = deps;
  const existing = await bootstrapAdminId(store);
  if (existing) return existing;
  const admins = await store.permissionSets.getBySystemKey(SYSTEM_ROLES.admins);
  if (!admins) throw new Error('the Admins permission set is missing');
  const now = nowIso(deps);
  const id = newId();
  // Nobody knows this password: the administrator works through API keys.
  const passwordHash = await hashSecret(randomBytes(32).toString('hex'));
  try {
    await store.transaction(async (tx) => {
      await tx.users.insert({
        id,
        first_name: 'Agora',
        last_name: 'Administrator',
        nickname: BOOTSTRAP_NICKNAME,
        email: 'admin@agora.invalid',
        password_hash: passwordHash,
        permission_set_id: admins.id,
        slug: BOOTSTRAP_NICKNAME,
        conditions_accepted_at: now,
        confidentiality_accepted_at: now,
        created_at: now,
        updated_at: now,
      });
      await recordAudit(tx, now, null, {
        action: 'user.create',
        target_id: id,
        summary: `created the bootstrap administrator ${BOOTSTRAP_NICKNAME}`,
      });
    });
    return id;
  } catch (error) {
    if (!isUniqueViolation(error, 'users')) throw error;
    const again = await bootstrapAdminId(store);
    if (again) return again;
    // Not made meanwhile: a nickname looks like it (`аdmin` with a Cyrillic а), which no longer stands beside it.
    if (!isUniqueViolation(error, 'users', 'nickname_skeleton')) throw error;
    const message = `The bootstrap administrator cannot be made: a user's nickname looks like ${BOOTSTRAP_NICKNAME}`;
    throw new AppError(409, ErrorCode.nicknameTaken, message);
  }
}

/**
 * Creates a key pair for a user (the bootstrap administrator when none is named). The secret is returned
 * once. Offline (`agora admin create-key`) there is no caller: the audit entry names no actor.
 */
export async function issueApiKey(deps: Deps, userId?: string, caller: Caller | null = null): Promise<IssuedKey> {
  const owner = userId === undefined ? await ensureBootstrapAdmin(deps) : await userIdOf(deps, userId);
  const pair = { api_key: newApiKey(), api_secret: newApiSecret() };
  const secretHash = await hashSecret(pair.api_secret);
  await deps.store.transaction(async (tx) => {
    const user = await tx.users.getById(owner);
    if (!user) throw new AppError(404, ErrorCode.notFound, `User ${owner} not found`);
    const id = newId();
    const now = nowIso(deps);
    await tx.apiKeys.insert({ id, user_id: owner, api_key: pair.api_key, secret_hash: secretHash, created_at: now });
    await recordApiKeyCreated(tx, now, caller, id, user.nickname);
  });
  return { user_id: owner, ...pair };
}

const recordApiKeyCreated = (tx: Store, now: string, caller: Caller | null, keyId: string, owner: string) =>
  recordAudit(tx, now, caller, {
    action: 'api_key.create',
    target_id: keyId,
    summary: `created an API key for ${owner}`,
  });

/** Makes sure a given pair exists for the bootstrap administrator (idempotent). */
export async function ensureApiKey(deps: Deps, apiKey: string, apiSecret: string): Promise<void> {
  if (apiKey.length < 8 || apiSecret.length < 16)
    throw new Error('the bootstrap key must have at least 8 characters and the secret at least 16');
  const existing = await deps.store.apiKeys.findSecretHash(apiKey);
  if (existing) {
    if (!(await verifySecret(apiSecret, existing.secret_hash)))
      throw new Error('AGORA_BOOTSTRAP_API_KEY already exists with another secret');
    return;
  }
  const owner = await ensureBootstrapAdmin(deps);
  const secretHash = await hashSecret(apiSecret);
  try {
    await deps.store.transaction(async (tx) => {
      const id = newId();
      const now = nowIso(deps);
      await tx.apiKeys.insert({ id, user_id: owner, api_key: apiKey, secret_hash: secretHash, created_at: now });
      await recordApiKeyCreated(tx, now, null, id, BOOTSTRAP_NICKNAME);
    });
  } catch (error) {
    // Another process made the same pair at the same moment.
    if (!isUniqueViolation(error, 'api_keys')) throw error;
  }
}

/** Key pairs, never a secret, optionally of one user. */
export async function listApiKeys(deps: Deps, query: ListApiKeysQuery): Promise<ListResult<ApiKey>> {
  const listed = await deps.store.apiKeys.list({ user_id: query.user_id }, query);
  return listResult(listed.rows, listed);
}

/**
 * Revokes a key pair, named by its id or its `api_key` value: the row goes, and every server on the store
 * refuses the pair from its next request (the verified-pair cache re-reads the key once the data changed).
 */
export async function revokeApiKey(deps: Deps, ref: string, caller: Caller | null = null): Promise<ApiKey> {
  return deps.store.transaction(async (tx) => {
    const key = await tx.apiKeys.findByRef(ref);
    if (!key || !(await tx.apiKeys.delete(key.id))) throw notFound('API key');
    const owner = await tx.users.getById(key.user_id);
    // Audited in the revocation's transaction; the caller is null when done offline (agora admin revoke-key).
    await recordAudit(tx, nowIso(deps), caller, {
      action: 'api_key.revoke',
      target_id: key.id,
      summary: `revoked an API key of ${owner?.nickname ?? key.user_id}`,
    });
    return key;
  });
}
