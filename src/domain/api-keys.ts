import { randomBytes } from 'node:crypto';
import { AppError, ErrorCode, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { SYSTEM_ROLES } from '../store/default-roles.js';
import { isUniqueViolation } from '../store/errors.js';
import type { ApiKey, ListApiKeysQuery } from '../shared/schemas/api-keys.js';
import type { ListResult } from '../shared/schemas/common.js';
import { nowIso, type Deps } from './context.js';
import { hashSecret, newApiKey, newApiSecret, verifySecret } from './secrets.js';

export const BOOTSTRAP_NICKNAME = 'admin';

export interface IssuedKey {
  user_id: string;
  api_key: string;
  api_secret: string;
}

/** The bootstrap administrator `admin` (role Admins), created on first need. */
export async function ensureBootstrapAdmin(deps: Deps): Promise<string> {
  const { store } = deps;
  const existing = await store.users.list({ nickname: BOOTSTRAP_NICKNAME }, { page: 1, per_page: 1 });
  if (existing.rows[0]) return existing.rows[0].id;
  const admins = await store.permissionSets.getBySystemKey(SYSTEM_ROLES.admins);
  if (!admins) throw new Error('the Admins permission set is missing');
  const now = nowIso(deps);
  const id = newId();
  try {
    await store.users.insert({
      id,
      first_name: 'Agora',
      last_name: 'Administrator',
      nickname: BOOTSTRAP_NICKNAME,
      email: 'admin@agora.invalid',
      // Nobody knows this password: the administrator works through API keys.
      password_hash: await hashSecret(randomBytes(32).toString('hex')),
      permission_set_id: admins.id,
      slug: BOOTSTRAP_NICKNAME,
      conditions_accepted_at: now,
      confidentiality_accepted_at: now,
      created_at: now,
      updated_at: now,
    });
    return id;
  } catch (error) {
    if (!isUniqueViolation(error, 'users')) throw error;
    const again = await store.users.list({ nickname: BOOTSTRAP_NICKNAME }, { page: 1, per_page: 1 });
    if (!again.rows[0]) throw error;
    return again.rows[0].id;
  }
}

/** Creates a key pair for a user (the bootstrap administrator when none is named). The secret is returned once. */
export async function issueApiKey(deps: Deps, userId?: string): Promise<IssuedKey> {
  const owner = userId ?? (await ensureBootstrapAdmin(deps));
  if (!(await deps.store.users.getById(owner))) throw new AppError(404, ErrorCode.notFound, `User ${owner} not found`);
  const pair = { api_key: newApiKey(), api_secret: newApiSecret() };
  await deps.store.apiKeys.insert({
    id: newId(),
    user_id: owner,
    api_key: pair.api_key,
    secret_hash: await hashSecret(pair.api_secret),
    created_at: nowIso(deps),
  });
  return { user_id: owner, ...pair };
}

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
  try {
    await deps.store.apiKeys.insert({
      id: newId(),
      user_id: owner,
      api_key: apiKey,
      secret_hash: await hashSecret(apiSecret),
      created_at: nowIso(deps),
    });
  } catch (error) {
    // Another process made the same pair at the same moment.
    if (!isUniqueViolation(error, 'api_keys')) throw error;
  }
}

/** Key pairs, never a secret, optionally of one user. */
export async function listApiKeys(deps: Deps, query: ListApiKeysQuery): Promise<ListResult<ApiKey>> {
  const { rows, total } = await deps.store.apiKeys.list({ user_id: query.user_id }, query);
  return { items: rows, total_items: total };
}

/**
 * Revokes a key pair, named by its id or its `api_key` value: the row goes, and every server on the store
 * refuses the pair from its next request (the verified-pair cache re-reads the key once the data changed).
 */
export async function revokeApiKey(deps: Deps, ref: string): Promise<ApiKey> {
  const key = await deps.store.apiKeys.findByRef(ref);
  if (!key || !(await deps.store.apiKeys.delete(key.id))) throw notFound('API key');
  return key;
}
