import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, ErrorCode } from '../shared/errors.js';
import { IDEMPOTENCY_PENDING } from '../store/access.js';
import type { Store } from '../store/store.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A reservation unanswered for this long was left by a process that died: another request may take it over. */
export const RESERVATION_STALE_MS = 60_000;
/** How long a request waits for the answer of another holding its key before answering 409. */
const WAIT_FOR_ANSWER_MS = 30_000;
const POLL_MS = 20;
/** Expired keys are purged at most this often (one range delete, not one per request). */
const PURGE_EVERY_MS = 60_000;

/** Fields shown once, at creation: never stored for a replay, so a replay answers the record without them. */
const SHOWN_ONCE = ['secret', 'api_secret'];

/**
 * The body as compared between two requests with one key goes without its password (`COMPARED_WITHOUT`): a
 * SHA-256 of it, kept 24 h, would be a fast way to guess the password that the store otherwise keeps only as a
 * scrypt hash. The rest of the body still tells one request from another (a new user's email, nickname and names).
 */
const COMPARED_WITHOUT = ['password'];

/** An object body without the fields named; anything else as it is. */
function without(body: unknown, fields: readonly string[]): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !fields.some((field) => field in body)) return body;
  return Object.fromEntries(Object.entries(body).filter(([key]) => !fields.includes(key)));
}

export interface IdempotencyGuard {
  store: Store;
  clock: () => Date;
  /**
   * The last request under way per caller and key in this process, so that a racing retry here waits without
   * polling the store. Only a shortcut: the reservation row is what makes one request act, across processes.
   */
  inFlight: Map<string, Promise<unknown>>;
  /** When this process last purged expired keys. */
  purgedAt?: number;
}

export interface Outcome {
  status: number;
  body: unknown;
  replayed?: boolean;
}

/**
 * `Idempotency-Key` on a POST: the same key with the same body within 24 h answers the first (successful)
 * response again without acting; the same key with another body is 422. The key is reserved by a row before
 * acting, so that of requests racing with one key (in one process or several) exactly one acts; the others
 * wait for its answer and replay it (409 `idempotency_key_in_use` if it takes over 30 s). A failed request
 * gives its key back; a reservation left by a process that died is taken over after a minute.
 */
export async function withIdempotency(
  guard: IdempotencyGuard,
  request: FastifyRequest,
  run: () => Promise<Outcome>,
): Promise<Outcome> {
  const header = request.headers['idempotency-key'];
  const key = typeof header === 'string' ? header.trim() : '';
  if (!key) return run();
  if (key.length > 255) throw new AppError(400, ErrorCode.invalidHeader, 'Idempotency-Key must be at most 255 characters');
  const userId = request.caller!.user.id;
  // The same fields in another order are the same request: keys sorted at every depth.
  const canonical = JSON.stringify(without(request.body ?? null, COMPARED_WITHOUT), (_, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
  const hash = createHash('sha256').update(`${request.method} ${request.url}\n${canonical}`).digest('hex');
  const slot = `${userId}\n${key}`;
  // Requests sharing a slot take turns, queued before any await: a retry racing the first waits until the first
  // has acted *and* stored its response, then replays it instead of acting twice.
  const before = guard.inFlight.get(slot) ?? Promise.resolve();
  const turn = before.catch(() => undefined).then(() => replayOrRun(guard, userId, key, hash, run));
  guard.inFlight.set(slot, turn);
  try {
    return await turn;
  } finally {
    if (guard.inFlight.get(slot) === turn) guard.inFlight.delete(slot);
  }
}

async function replayOrRun(
  guard: IdempotencyGuard,
  userId: string,
  key: string,
  hash: string,
  run: () => Promise<Outcome>,
): Promise<Outcome> {
  const { store } = guard;
  const giveUpAt = Date.now() + WAIT_FOR_ANSWER_MS;
  for (;;) {
    const now = guard.clock();
    const reservedAt = now.toISOString();
    if (await store.idempotency.reserve({ user_id: userId, idempotency_key: key, request_hash: hash, created_at: reservedAt }))
      return runReserved(guard, userId, key, reservedAt, run);
    const previous = await store.idempotency.get(userId, key);
    if (!previous) continue; // given back meanwhile: try to reserve it again
    if (Date.parse(previous.created_at) <= now.getTime() - DAY_MS) {
      await store.idempotency.forgetBefore(userId, key, new Date(now.getTime() - DAY_MS).toISOString());
      continue;
    }
    if (previous.request_hash !== hash)
      throw new AppError(422, ErrorCode.idempotencyKeyReused, 'This Idempotency-Key was already used with another request body');
    if (previous.status_code !== IDEMPOTENCY_PENDING)
      return { status: previous.status_code, body: JSON.parse(previous.response_body), replayed: true };
    // Another request holds the key and is acting: wait for its answer, or take over a reservation it left.
    if (
      Date.parse(previous.created_at) < now.getTime() - RESERVATION_STALE_MS &&
      (await store.idempotency.takeOver(userId, key, previous.created_at, reservedAt, hash))
    )
      return runReserved(guard, userId, key, reservedAt, run);
    if (Date.now() > giveUpAt)
      throw new AppError(409, ErrorCode.idempotencyKeyInUse, 'A request with this Idempotency-Key is still being processed: try again shortly', undefined, {
        'retry-after': '1',
      });
    await sleep(POLL_MS);
  }
}

/** Acts under a reserved key: its answer is written into the reservation; a failure gives the key back. */
async function runReserved(
  guard: IdempotencyGuard,
  userId: string,
  key: string,
  reservedAt: string,
  run: () => Promise<Outcome>,
): Promise<Outcome> {
  let outcome: Outcome;
  try {
    outcome = await run();
  } catch (error) {
    await guard.store.idempotency.release(userId, key, reservedAt);
    throw error;
  }
  if (outcome.status < 300)
    await guard.store.idempotency.complete(userId, key, reservedAt, outcome.status, JSON.stringify(without(outcome.body ?? null, SHOWN_ONCE)));
  else await guard.store.idempotency.release(userId, key, reservedAt);
  const now = guard.clock().getTime();
  if (guard.purgedAt === undefined || now - guard.purgedAt >= PURGE_EVERY_MS) {
    guard.purgedAt = now;
    await guard.store.idempotency.purgeBefore(new Date(now - DAY_MS).toISOString());
  }
  return outcome;
}
