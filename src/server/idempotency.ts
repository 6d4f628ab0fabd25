import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { AppError, ErrorCode } from '../shared/errors.js';
import type { Store } from '../store/store.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Fields shown once, at creation: never stored for a replay, so a replay answers the record without them. */
const SHOWN_ONCE = ['secret', 'api_secret'];

function withoutSecrets(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  return Object.fromEntries(Object.entries(body).filter(([key]) => !SHOWN_ONCE.includes(key)));
}

export interface IdempotencyGuard {
  store: Store;
  clock: () => Date;
  /** The last request under way per caller and key, so that a racing retry waits for it instead of acting twice. */
  inFlight: Map<string, Promise<unknown>>;
}

export interface Outcome {
  status: number;
  body: unknown;
  replayed?: boolean;
}

/**
 * `Idempotency-Key` on a POST: the same key with the same body within 24 h answers the first (successful)
 * response again without acting; the same key with another body is 422.
 */
export async function withIdempotency(
  guard: IdempotencyGuard,
  request: FastifyRequest,
  run: () => Promise<Outcome>,
): Promise<Outcome> {
  const header = request.headers['idempotency-key'];
  const key = typeof header === 'string' ? header.trim() : '';
  if (!key) return run();
  if (key.length > 255) throw new AppError(400, ErrorCode.invalidBody, 'Idempotency-Key must be at most 255 characters');
  const userId = request.caller!.user.id;
  const hash = createHash('sha256')
    .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
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
  const now = guard.clock();
  const previous = await guard.store.idempotency.get(userId, key);
  if (previous && Date.parse(previous.created_at) > now.getTime() - DAY_MS) {
    if (previous.request_hash !== hash)
      throw new AppError(
        422,
        ErrorCode.idempotencyKeyReused,
        'This Idempotency-Key was already used with another request body',
      );
    return { status: previous.status_code, body: JSON.parse(previous.response_body), replayed: true };
  }
  const outcome = await run();
  if (outcome.status < 300) {
    await guard.store.idempotency.purgeBefore(new Date(now.getTime() - DAY_MS).toISOString());
    await guard.store.idempotency.put({
      user_id: userId,
      idempotency_key: key,
      request_hash: hash,
      status_code: outcome.status,
      response_body: JSON.stringify(withoutSecrets(outcome.body ?? null)),
      created_at: now.toISOString(),
    });
  }
  return outcome;
}
