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
