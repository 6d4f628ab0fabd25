import * as crypto from 'node:crypto';
import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';

/**
 * scrypt's cost for new hashes, as log2 of N (AGORA_SCRYPT_COST, 14 unless set: N = 16,384, r = 8, 16 MiB and tens
 * of milliseconds a hash). A fast machine may raise it; existing hashes keep the cost they were made with, which
 * they carry. The test suite lowers it to spend its time on the rules rather than on hashing thousands of secrets.
 */
export const DEFAULT_SCRYPT_COST = 14;
/** The costs a hash may have, made here or read back (log2 of N). */
const COSTS = { min: 10, max: 17 } as const;
export const SCRYPT_COST = scryptCostFrom(process.env);
const PARAMS = { N: 2 ** SCRYPT_COST, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
// scrypt takes 128 · N · r bytes: room for the highest cost (N = 2^17, r = 8, 128 MiB), and a bound on what a
// stored hash's parameters can ask for.
const MAX_MEMORY = 129 * 1024 * 1024;

export function scryptCostFrom(env: NodeJS.ProcessEnv): number {
  const value = env.AGORA_SCRYPT_COST;
  if (value === undefined || value === '') return DEFAULT_SCRYPT_COST;
  const n = Number(value);
  if (!Number.isInteger(n) || n < COSTS.min || n > COSTS.max)
    throw new Error(`AGORA_SCRYPT_COST must be a whole number from ${COSTS.min} to ${COSTS.max} (log2 of scrypt's N)`);
  return n;
}

function scryptAsync(secret: string, salt: Buffer, params: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, KEY_LENGTH, { ...params, maxmem: MAX_MEMORY }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/**
 * Hashes computed at once: one per core (AGORA_HASH_CONCURRENCY to change it). scrypt is CPU-bound, so more at
 * once would not hash faster; they would only take the cores from the requests that hash nothing. Without this,
 * an import sending 16 users at a time fills libuv's four threads on a two-core machine and a `GET /pages`
 * waits behind them (its p99 went from ~10 ms to over 100 ms). The others wait here, in order.
 */
export const HASH_CONCURRENCY = hashConcurrencyFrom(process.env);
let hashing = 0;
const waitingToHash: (() => void)[] = [];

export function hashConcurrencyFrom(env: NodeJS.ProcessEnv): number {
  const value = env.AGORA_HASH_CONCURRENCY;
  if (value === undefined || value === '') return Math.max(1, availableParallelism());
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error('AGORA_HASH_CONCURRENCY must be a whole number of hashes, 1 or more');
  return n;
}

async function inHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (hashing >= HASH_CONCURRENCY) await new Promise<void>((start) => waitingToHash.push(start));
  else hashing += 1;
  try {
    return await work();
  } finally {
    // The slot passes straight to the next in line, if any.
    const next = waitingToHash.shift();
    if (next) next();
    else hashing -= 1;
  }
}

/** `scrypt$N$r$p$salt$hash` (base64url parts), for passwords and API secrets alike. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await inHashSlot(() => scryptAsync(secret, salt, PARAMS));
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/**
 * A hash no secret matches, at the configured cost: an unknown key is checked against it, so that it takes as
 * long as a known key's wrong secret (the time tells nothing of which keys exist).
 */
export const DUMMY_HASH = ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, 'A'.repeat(22), 'A'.repeat(43)].join('$');

/**
 * Constant-time check of a secret against a stored hash; a malformed hash never matches, nor one whose parameters
 * are not ours (N a power of two from 2^10 to 2^17, r = 8, p = 1): a stored hash cannot ask for minutes of CPU.
 */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const cost = Math.log2(Number(n));
  if (!Number.isInteger(cost) || cost < COSTS.min || cost > COSTS.max || r !== String(PARAMS.r) || p !== String(PARAMS.p)) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(secret, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A fast digest, for comparing against pairs already verified with scrypt. */
export const fastDigest = (value: string): Buffer => (oneShot ? oneShot('sha256', value, 'buffer') : createHash('sha256').update(value).digest());
// `crypto.hash` (Node 20.12+: no Hash object for one digest, about a third cheaper), else a Hash.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'buffer') => Buffer }).hash;

export const newApiKey = (): string => `ak_${randomBytes(16).toString('hex')}`;
export const newApiSecret = (): string => `as_${randomBytes(32).toString('base64url')}`;
