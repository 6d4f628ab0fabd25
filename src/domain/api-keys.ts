import { randomBytes } from 'node:crypto';
import { timingSafeEqual } from 'node:crypto';
import { AppError, ErrorCode } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { SYSTEM_ROLES } from '../store/default-roles.js';
import { isUniqueViolation } from '../store/errors.js';
import type { Store } from '../store/store.js';
import type { Permissions } from '../shared/schemas/permissions.js';
import { recordAudit } from './audit.js';
import { nowIso, type Caller, type Deps } from './context.js';
import { parsePermissions } from './permissions.js';
import { fastDigest, hashSecret, newApiKey, newApiSecret, verifySecret } from './secrets.js';

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
        target_type: 'user',
        target_id: id,
        summary: `created the bootstrap administrator ${BOOTSTRAP_NICKNAME}`,
      });
    });
    return id;
  } catch (error) {
    if (!isUniqueViolation(error, 'users')) throw error;
    const again = await store.users.list({ nickname: BOOTSTRAP_NICKNAME }, { page: 1, per_page: 1 });
    if (!again.rows[0]) throw error;
    return again.rows[0].id;
  }
}

/**
 * Creates a key pair for a user (the bootstrap administrator when none is named). The secret is returned
 * once. Offline (`agora admin create-key`) there is no caller: the audit entry names no actor.
 */
export async function issueApiKey(deps: Deps, userId?: string, caller: Caller | null = null): Promise<IssuedKey> {
  const owner = userId ?? (await ensureBootstrapAdmin(deps));
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
    target_type: 'api_key',
    target_id: keyId,
    summary: `created an API key for ${owner}`,
  });
// Revoking a key (issue 12) is audited the same way, in its transaction: action 'api_key.revoke',
// target_type 'api_key', summary `revoked an API key of <nickname>`, caller null when done offline.

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

interface VerifiedPair {
  digest: Buffer;
  userId: string;
  expiresAt: number;
}

const unauthorized = (message: string) => new AppError(401, ErrorCode.unauthorized, message);

/**
 * Checks `Api-Key`/`Api-Secret`. A scrypt check costs tens of milliseconds, so a pair that passed is
 * remembered (by a SHA-256 digest of the secret, never the secret) for a few minutes.
 */
export class Authenticator {
  private readonly verified = new Map<string, VerifiedPair>();

  constructor(
    private readonly deps: Deps,
    private readonly options: { ttlMs?: number; maxEntries?: number } = {},
  ) {}

  async authenticate(apiKey: string | undefined, apiSecret: string | undefined): Promise<Caller> {
    if (!apiKey || !apiSecret) throw unauthorized('Missing credentials: send the Api-Key and Api-Secret headers');
    if (apiKey.length > 200 || apiSecret.length > 200) throw unauthorized('Invalid API key or secret');
    const userId = (await this.fromCache(apiKey, apiSecret)) ?? (await this.verify(apiKey, apiSecret));
    // Kept only while the stored data has not changed at all: a role change applies to the very next call.
    const version = this.deps.store.dataVersion();
    const known = this.callers.get(userId);
    if (known && version !== undefined && known.version === version) return known.caller;
    const row = await this.deps.store.users.getWithPermissions(userId);
    if (!row) throw unauthorized('Invalid API key or secret');
    const { role_permissions, ...user } = row;
    const caller = { user, permissions: this.parsed(role_permissions), isAdmin: user.role_system_key === SYSTEM_ROLES.admins };
    if (version !== undefined) {
      if (this.callers.size >= (this.options.maxEntries ?? 10_000)) this.callers.clear();
      this.callers.set(userId, { version, caller });
    }
    return caller;
  }

  private readonly callers = new Map<string, { version: string; caller: Caller }>();

  /** Parsing a role's permissions once per distinct value (a role's JSON changes only when the role is edited). */
  private readonly permissionsByJson = new Map<string, Permissions>();
  private parsed(json: string): Permissions {
    let permissions = this.permissionsByJson.get(json);
    if (!permissions) {
      if (this.permissionsByJson.size >= 1000) this.permissionsByJson.clear();
      permissions = parsePermissions(json);
      this.permissionsByJson.set(json, permissions);
    }
    return permissions;
  }

  private async fromCache(apiKey: string, apiSecret: string): Promise<string | undefined> {
    const hit = this.verified.get(apiKey);
    if (!hit) return undefined;
    if (hit.expiresAt < Date.now()) {
      this.verified.delete(apiKey);
      return undefined;
    }
    return timingSafeEqual(hit.digest, fastDigest(apiSecret)) ? hit.userId : undefined;
  }

  private async verify(apiKey: string, apiSecret: string): Promise<string> {
    const row = await this.deps.store.apiKeys.findSecretHash(apiKey);
    // Unknown keys cost a scrypt too, so that timing does not tell which keys exist.
    const ok = await verifySecret(apiSecret, row?.secret_hash ?? DUMMY_HASH);
    if (!row || !ok) throw unauthorized('Invalid API key or secret');
    const max = this.options.maxEntries ?? 10_000;
    if (this.verified.size >= max) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(apiKey, {
      digest: fastDigest(apiSecret),
      userId: row.user_id,
      expiresAt: Date.now() + (this.options.ttlMs ?? 5 * 60_000),
    });
    return row.user_id;
  }
}

const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
