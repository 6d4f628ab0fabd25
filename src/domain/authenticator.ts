import { timingSafeEqual } from 'node:crypto';
import { AppError, ErrorCode, rateLimited } from '../shared/errors.js';
import type { Permissions } from '../shared/schemas/permissions.js';
import { SYSTEM_ROLES } from '../store/default-roles.js';
import { FailureLimiter, VerificationQueue } from './auth-limits.js';
import type { Caller, Deps } from './context.js';
import { parsePermissions } from './permissions.js';
import { DUMMY_HASH, fastDigest, verifySecret } from './secrets.js';

export interface AuthLimits {
  /** Failed authentications allowed per client address in a window (default 20). */
  failuresPerAddress?: number;
  /**
   * Failed authentications allowed per API key *and* address in a window (default 10): a flood of wrong
   * secrets for a key from one address never holds back that key from another address.
   */
  failuresPerKey?: number;
  /** The window, in milliseconds (default 60 s). */
  windowMs?: number;
  /** scrypt checks at once (default 2) and waiting (default 64). */
  verifyConcurrency?: number;
  verifyQueue?: number;
  /** How long a verified pair is remembered after its last use (default 5 minutes), and how many (default 10,000). */
  ttlMs?: number;
  maxEntries?: number;
}

export const DEFAULT_AUTH_LIMITS = {
  failuresPerAddress: 20,
  failuresPerKey: 10,
  windowMs: 60_000,
  verifyConcurrency: 2,
  verifyQueue: 64,
  ttlMs: 5 * 60_000,
  maxEntries: 10_000,
} satisfies Required<AuthLimits>;

interface VerifiedPair {
  digest: Buffer;
  keyId: string;
  userId: string;
  secretHash: string;
  expiresAt: number;
  /** When `last_used_at` was last written. */
  markedAt: number;
  /** The store's data version when the key's row was last seen unchanged. */
  confirmedAt: string | undefined;
}

/** A key's row, as a check reads it. */
type KeyRow = { id: string; user_id: string; secret_hash: string };

const unauthorized = (message: string) => new AppError(401, ErrorCode.unauthorized, message);
const INVALID = 'Invalid API key or secret';
/** What a remembered caller is read from (their user and role), and a remembered key pair (the keys). */
const CALLER_TABLES = ['permission_sets', 'users'] as const;
const KEY_TABLES = ['api_keys'] as const;

/**
 * Checks `Api-Key`/`Api-Secret`. A scrypt check costs tens of milliseconds, so a pair that passed is
 * remembered (by a SHA-256 digest of the secret, never the secret) for a few minutes; it is trusted only while
 * its key's row is unchanged, re-read whenever the store's access version moved (a key, user or role changed,
 * by this process or another: SQLite's data version, PostgreSQL's LISTEN/NOTIFY), so a revoked key is refused
 * from the next request (on PostgreSQL, once the notification has arrived). Scrypt
 * checks go through a bounded queue where those who failed wait last. Failures are counted per address and per
 * key *and* address, never per key alone: the `api_key` is no secret, so counting per key would let anyone
 * lock its owner out (docs/security.md).
 */
export class Authenticator {
  private readonly verified = new Map<string, VerifiedPair>();
  private readonly callers = new Map<string, { version: string; caller: Caller }>();
  private readonly limits: Required<AuthLimits>;
  private readonly byAddress: FailureLimiter;
  private readonly byPair: FailureLimiter;
  private readonly queue: VerificationQueue;
  /** The scrypt checks running, by key and a digest of the secret. */
  private readonly checks = new Map<string, Promise<KeyRow | undefined>>();

  constructor(
    private readonly deps: Deps,
    limits: AuthLimits = {},
  ) {
    // Settings left undefined keep their defaults.
    const given = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
    this.limits = { ...DEFAULT_AUTH_LIMITS, ...given };
    this.byAddress = new FailureLimiter(this.limits.failuresPerAddress, this.limits.windowMs, 'once failed');
    this.byPair = new FailureLimiter(this.limits.failuresPerKey, this.limits.windowMs, 'always');
    this.queue = new VerificationQueue(this.limits.verifyConcurrency, this.limits.verifyQueue);
  }

  /**
   * `again`: the pair was accepted before (a live stream checks its caller again, before each delivery and at each
   * keep-alive): a refusal now (the key revoked) is no failed attempt, so it is not counted against the address or
   * the pair.
   */
  async authenticate(apiKey: string | undefined, apiSecret: string | undefined, address = 'unknown', again = false): Promise<Caller> {
    if (!apiKey || !apiSecret) throw unauthorized('Missing credentials: send the Api-Key and Api-Secret headers');
    const cached = await this.fromCache(apiKey, apiSecret);
    const userId = cached.userId ?? (await this.verifyLimited(apiKey, apiSecret, address, cached.known, again));
    // Kept only while the user and the roles have not changed: a role change applies to the very next call.
    const version = this.deps.store.versionOf(CALLER_TABLES);
    const known = this.callers.get(userId);
    if (known && version !== undefined && known.version === version) return known.caller;
    const row = await this.deps.store.users.getWithPermissions(userId);
    if (!row) throw unauthorized(INVALID);
    const { role_permissions, ...user } = row;
    // Read with the user (a suspension's write touches the user's row, so the version above moves with it).
    const suspension = user.suspension_reason != null ? { reason: user.suspension_reason, until: user.suspension_until ?? null } : null;
    const caller = { user, permissions: this.parsed(role_permissions), isAdmin: user.role_system_key === SYSTEM_ROLES.admins, suspension };
    if (version !== undefined) {
      if (this.callers.size >= this.limits.maxEntries) this.callers.clear();
      this.callers.set(userId, { version, caller });
    }
    return caller;
  }

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

  private now(): number {
    return this.deps.clock().getTime();
  }

  /**
   * The user of a remembered pair, or undefined. A remembered pair's lifetime slides with use; one that has
   * expired still vouches for its secret (`known`): it is checked with scrypt again, but never held back by
   * the failure limits, so a client that was working is not locked out by a flood of wrong secrets for its key.
   */
  private async fromCache(apiKey: string, apiSecret: string): Promise<{ userId?: string; known: boolean }> {
    const hit = this.verified.get(apiKey);
    if (!hit || !timingSafeEqual(hit.digest, fastDigest(apiSecret))) return { known: false };
    if (hit.expiresAt < this.now()) return { known: true };
    const version = this.deps.store.versionOf(KEY_TABLES);
    if (version === undefined || version !== hit.confirmedAt) {
      // The keys changed since the pair was last seen: make sure its key still stands as it was verified.
      const row = await this.deps.store.apiKeys.findSecretHash(apiKey);
      if (!row || row.id !== hit.keyId || row.secret_hash !== hit.secretHash) {
        this.verified.delete(apiKey);
        return { known: false };
      }
      hit.confirmedAt = version;
    }
    const now = this.now();
    hit.expiresAt = now + this.limits.ttlMs;
    // `last_used_at` is kept to within the pair's lifetime: one write per lifetime, not one per request.
    if (now - hit.markedAt >= this.limits.ttlMs) {
      hit.markedAt = now;
      await this.deps.store.apiKeys.markUsed(hit.keyId, this.deps.clock().toISOString());
    }
    return { userId: hit.userId, known: true };
  }

  private async verifyLimited(apiKey: string, apiSecret: string, address: string, known: boolean, again = false): Promise<string> {
    const now = this.now();
    const pair = pairOf(apiKey, address);
    const wait = known ? 0 : Math.max(this.byAddress.retryAfter(address, now), this.byPair.retryAfter(pair, now));
    if (wait > 0)
      throw rateLimited(`Too many failed authentications: retry in ${Math.ceil(wait)} s`, wait);
    if (apiKey.length > 200 || apiSecret.length > 200) return this.failed(pair, address);
    const suspect = !known && (this.byAddress.count(address, now) > 0 || this.byPair.count(pair, now) > 0);
    // The keys' version before the key is read: the pair is confirmed as of it, so the next request does not read the
    // key again unless a key changed since (then the version has moved).
    const version = this.deps.store.versionOf(KEY_TABLES);
    const row = await this.check(apiKey, apiSecret, version, pair, address, suspect);
    if (!row) {
      if (again) throw unauthorized(INVALID);
      return this.failed(pair, address);
    }
    this.byPair.forget(pair);
    if (this.verified.size >= this.limits.maxEntries) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(apiKey, {
      digest: fastDigest(apiSecret),
      keyId: row.id,
      userId: row.user_id,
      secretHash: row.secret_hash,
      expiresAt: this.now() + this.limits.ttlMs,
      markedAt: this.now(),
      confirmedAt: version,
    });
    await this.deps.store.apiKeys.markUsed(row.id, this.deps.clock().toISOString());
    return row.user_id;
  }

  /**
   * One scrypt check of the pair, counted against the limits while it runs (`begin`/`end`). The same key and secret
   * asked for again meanwhile (a script's first calls, in parallel) wait for that check rather than start another, if
   * the keys' version has not moved since it began: a check that read the key before it was revoked answers for no
   * request made after.
   */
  private check(apiKey: string, apiSecret: string, version: string | undefined, pair: string, address: string, suspect: boolean): Promise<KeyRow | undefined> {
    const id = `${version ?? ''}\n${apiKey}\n${fastDigest(apiSecret).toString('hex')}`;
    const running = this.checks.get(id);
    if (running) return running;
    this.byAddress.begin(address);
    this.byPair.begin(pair);
    const check = this.queue
      .run(suspect, async () => {
        const found = await this.deps.store.apiKeys.findSecretHash(apiKey);
        // Unknown keys cost a scrypt too, so that timing does not tell which keys exist.
        const ok = await verifySecret(apiSecret, found?.secret_hash ?? DUMMY_HASH);
        return found && ok ? found : undefined;
      })
      .finally(() => {
        this.checks.delete(id);
        this.byAddress.end(address);
        this.byPair.end(pair);
      });
    this.checks.set(id, check);
    return check;
  }

  private failed(pair: string, address: string): never {
    const now = this.now();
    this.byAddress.fail(address, now);
    this.byPair.fail(pair, now);
    throw unauthorized(INVALID);
  }
}

/** The failure counter of a key from an address; a key past 200 characters (refused anyway) is counted by its start. */
const pairOf = (apiKey: string, address: string) => `${address} ${apiKey.slice(0, 200)}`;

