import type { Permissions } from '../shared/schemas/permissions.js';
import type { Store } from '../store/store.js';
import type { UserWithRole } from '../store/users.js';
import type { Viewer } from '../store/visibility.js';

export type Clock = () => Date;

/** What every rule needs: the store and the time; and, in a server, the webhook sender to wake after a change. */
export interface Deps {
  store: Store;
  clock: Clock;
  webhooks?: { wake(): void };
  /** The notification fan-out worker, woken after a change that recorded a fan-out. */
  notifications?: { wake(): void };
}

/** The user whose API key signed the request, with what their role grants. */
export interface Caller {
  user: UserWithRole;
  permissions: Permissions;
  /** Project administrator: the role is the default Admins set. */
  isAdmin: boolean;
  /** The id of the request being served (X-Request-Id), for the audit log. */
  requestId?: string;
  /** The caller's suspension, as read with the user (over or not: `until` is compared at each request). */
  suspension?: { reason: string; until: string | null } | null;
}

export const nowIso = (deps: Deps): string => deps.clock().toISOString();

/** The caller as the store's visibility rules see them. */
export const viewerOf = (caller: Caller): Viewer => ({ id: caller.user.id, isAdmin: caller.isAdmin });

/**
 * A moderation act (domain/README.md, "Moderation takes turns"): `check` refuses it before it waits for its turn, so
 * that a flood of refused acts holds no moderator up, and again in its turn, after `hold` took what a second act on
 * the same content waits for. `act` then runs on what the check found, at the time of its turn; the webhook sender
 * is woken after the commit, for the deliveries the act wrote.
 */
export async function inTurn<T, R>(
  deps: Deps,
  check: (store: Store, now: string) => Promise<T>,
  act: (tx: Store, found: T, now: string) => Promise<R>,
  hold?: (tx: Store) => Promise<unknown>,
): Promise<R> {
  await check(deps.store, nowIso(deps));
  const done = await deps.store.transaction(async (tx) => {
    await tx.takeTurns('moderation');
    const now = nowIso(deps);
    await hold?.(tx);
    return act(tx, await check(tx, now), now);
  });
  deps.webhooks?.wake();
  return done;
}
