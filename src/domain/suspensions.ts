import { AppError, conflict, ErrorCode, invalidFields, notFound } from '../shared/errors.js';
import type { SuspendUserInput } from '../shared/schemas/suspensions.js';
import type { User } from '../shared/schemas/users.js';
import type { Store } from '../store/store.js';
import type { UserWithRole } from '../store/users.js';
import { SYSTEM_ROLES } from '../store/default-roles.js';
import { recordAudit } from './audit.js';
import { nowIso, type Caller, type Deps } from './context.js';
import { userRef, notifyUsers } from './notifications.js';
import { can, requireAdmin } from './permissions.js';
import { inForce, suspensionOf, toUserRecord } from './users.js';

/**
 * Suspension (docs/api.md, "Moderating content and people"): Admins suspend a user with a reason and an optional end. While it lasts, the user's
 * keys are refused (403 `account_suspended`), their statuses and comments are hidden from all but Admins, and
 * nobody may follow, invite or let them in. It is over when lifted or, by itself, once `until` is past.
 */

const endOf = (s: { until: string | null }) => (s.until ? `until ${s.until}` : 'until it is lifted');

/**
 * What every request's caller must be to use the API at all: not suspended (403 `account_suspended`, naming the
 * reason and the end), and of a role with `users.can_use_api` (403 `api_access_denied`). Checked on each request,
 * and before each delivery and at each keep-alive of a live stream opened earlier, so that a suspension, a revoked
 * key or a changed role also ends the streams.
 */
export function requireMayUseApi(caller: Caller, now: Date): void {
  const s = caller.suspension;
  if (s && inForce(s, now)) throw new AppError(403, ErrorCode.accountSuspended, `Your account is suspended ${endOf(s)}: ${s.reason}`);
  if (!can(caller, 'users', 'can_use_api'))
    throw new AppError(403, ErrorCode.apiAccessDenied, 'Your role does not grant the permission users.can_use_api');
}

/**
 * A user may be followed, invited or let in only while not suspended (409 `user_suspended`): read by id, or from
 * a user already read (`users.getById` joins the suspension; no second statement).
 */
export async function requireNotSuspendedUser(store: Store, now: string, user: string | UserWithRole): Promise<void> {
  const suspended = typeof user === 'string' ? inForce(await store.suspensions.get(user), new Date(now)) : suspensionOf(user, new Date(now)) !== null;
  if (suspended) throw conflict(ErrorCode.userSuspended, 'This user is suspended');
}

export async function suspendUser(deps: Deps, caller: Caller, userId: string, input: SuspendUserInput): Promise<User> {
  requireAdmin(caller, 'suspend users');
  const row = await deps.store.transaction(async (tx) => {
    await tx.takeTurns('moderation');
    // Timed in its turn: an act that waited is not dated before the one it waited for.
    const now = nowIso(deps);
    const user = await tx.users.getById(userId);
    if (!user) throw notFound('User');
    await suspendIn(tx, now, caller, user, input);
    return (await tx.users.getById(user.id))!;
  });
  return toUserRecord(row, caller, deps.clock());
}

/**
 * Suspends a user, in the caller's transaction (a report's `suspend` too): never oneself nor the last Admin, and
 * never until a time already past (a suspension over before it began).
 */
export async function suspendIn(tx: Store, now: string, caller: Caller, read: UserWithRole, input: SuspendUserInput): Promise<void> {
  // Held, then read again: the role decides the last-Admin check. Read unheld, a user being made an Admin at that
  // moment looked a Member, so the check was skipped while a demotion counted them as the other Admin: a promotion,
  // this suspension and the demotion of the last other Admin, all at once, left no Admin who could act.
  if (!(await tx.users.hold(read.id, 'write'))) throw notFound('User');
  const user = (await tx.users.getById(read.id)) ?? read;
  if (input.until && input.until <= now) throw invalidFields([{ field: 'until', message: 'must be in the future' }]);
  if (user.id === caller.user.id) throw conflict(ErrorCode.cannotSuspendSelf, 'You cannot suspend yourself');
  if (await isLastUnsuspendedAdmin(tx, now, user)) throw conflict(ErrorCode.lastAdmin, 'You cannot suspend the last unsuspended Admin');
  await tx.suspensions.put({ user_id: user.id, reason: input.reason, until: input.until ?? null, created_at: now, created_by: caller.user.id });
  await recordAudit(tx, now, caller, {
    action: 'user.suspend',
    target_id: user.id,
    summary: `suspended ${user.nickname} ${endOf({ until: input.until ?? null })}: ${input.reason}`,
  });
}

/**
 * Whether `user` is the one Admin not suspended at `now`, the last who could lift a suspension or change a role:
 * neither suspended nor demoted. A suspended Admin cannot act, so does not count. The Admins role is locked while
 * they are counted, so that a suspension and a demotion racing in two processes cannot both leave "another Admin".
 */
export async function isLastUnsuspendedAdmin(tx: Store, now: string, user: UserWithRole): Promise<boolean> {
  if (user.role_system_key !== SYSTEM_ROLES.admins) return false;
  await tx.permissionSets.getLocked(user.permission_set_id, 'update');
  const admins = await tx.users.adminIds(now);
  return admins.length === 1 && admins[0] === user.id;
}

/**
 * Lifts a user's suspension. Lifting one that is not there (never was, already lifted, or over by itself at its
 * `until`) is no error: DELETE leaves the user unsuspended either way, so the answer is the user (200), and only a
 * lift that ended a suspension in force writes the audit entry and tells the user. `lifted`: whether this one did
 * (the answer's `Suspension-Lifted` header), read in the lift's own transaction, not before it.
 */
export async function liftSuspension(deps: Deps, caller: Caller, userId: string): Promise<{ user: User; lifted: boolean }> {
  requireAdmin(caller, 'lift suspensions');
  const row = await deps.store.transaction(async (tx) => {
    await tx.takeTurns('moderation');
    const now = nowIso(deps);
    const user = await tx.users.getById(userId);
    if (!user) throw notFound('User');
    // `getById` joins the suspension: none in force, nothing to lift.
    if (!suspensionOf(user, new Date(now))) return { row: user, lifted: false };
    // The delete says whether this request lifted it: lifts racing on PostgreSQL all read it in force, and each
    // wrote its own audit entry and notification.
    if (!(await tx.suspensions.delete(user.id, now))) return { row: (await tx.users.getById(user.id))!, lifted: false };
    await recordAudit(tx, now, caller, { action: 'user.unsuspend', target_id: user.id, summary: `lifted ${user.nickname}'s suspension` });
    await notifyUsers(
      tx,
      now,
      { type: 'suspension_lifted', action: 'lifted', subject: userRef(caller.user), target: userRef(user), finalTarget: userRef(user), link: userRef(user) },
      [user.id],
      [caller.user.id],
    );
    return { row: (await tx.users.getById(user.id))!, lifted: true };
  });
  return { user: toUserRecord(row.row, caller, deps.clock()), lifted: row.lifted };
}
