import { ErrorCode, forbidden, notFound } from '../shared/errors.js';
import {
  buildPermissions,
  PERMISSION_CATALOGUE,
  type PermissionAction,
  type PermissionCategory,
  type Permissions,
} from '../shared/schemas/permissions.js';
import type { PermissionSetRow } from '../store/access.js';
import { SYSTEM_ROLES } from '../store/default-roles.js';
import type { Caller, Deps } from './context.js';

/** A stored permissions object, completed with any action added to the catalogue since it was written. */
export function parsePermissions(json: string): Permissions {
  return buildPermissions(JSON.parse(json) as Permissions);
}

/** Whose role a rule reads: the caller, or the user an Admin acts for (`actingUser`). */
type Holder = { permissions: Permissions };

export function can<C extends PermissionCategory>(holder: Holder, category: C, action: PermissionAction<C>): boolean {
  return (holder.permissions[category] as Record<string, boolean>)[action] === true;
}

/** 403 unless the role grants the action; `whose` names the role in the message when it is not the caller's. */
export function requirePermission<C extends PermissionCategory>(
  holder: Holder,
  category: C,
  action: PermissionAction<C>,
  whose = 'Your role',
): void {
  if (!can(holder, category, action))
    throw forbidden(`${whose} does not grant the permission ${category}.${action}`, ErrorCode.forbidden);
}

/** The first action, in the catalogue's order, that `role` turns on (on, and off in `before`) and `caller`'s role lacks. */
function beyondOwn(caller: Caller, role: Permissions, before?: Permissions): string | undefined {
  for (const [category, actions] of Object.entries(PERMISSION_CATALOGUE) as [PermissionCategory, readonly string[]][])
    for (const action of actions) {
      const on = (p: Permissions | undefined) => (p?.[category] as Record<string, boolean> | undefined)?.[action] === true;
      if (on(role) && !on(before) && !on(caller.permissions)) return `${category}.${action}`;
    }
  return undefined;
}

/**
 * 403 unless the caller's own role grants every action that `next` turns on (on in `next`, off in `before`; a new
 * role has none on before), Admins excepted: holding users.add_roles or users.edit_roles lets a delegate give out no
 * more than they hold, neither to their own role nor to one an Admin may then hand out. Turning an action off, or
 * leaving it as it is, is allowed.
 */
export function requireGrantable(caller: Caller, next: Permissions, before?: Permissions): void {
  const beyond = caller.isAdmin ? undefined : beyondOwn(caller, next, before);
  if (beyond) throw forbidden(`Your role does not grant ${beyond}: you cannot give it to a role`);
}

/**
 * 403 unless `role` grants nothing the caller's own does not, Admins excepted: a role above a delegate is the
 * Admins' to change, its name too (renamed as one an Admin gives out, it would be given in that one's place).
 */
export function requireWithinOwn(caller: Caller, role: Permissions): void {
  const beyond = caller.isAdmin ? undefined : beyondOwn(caller, role);
  if (beyond) throw forbidden(`This role grants ${beyond}, which your role does not: only project administrators (role Admins) may change it`);
}

export function requireAdmin(caller: Caller, what: string): void {
  if (!caller.isAdmin) throw forbidden(`Only project administrators (role Admins) may ${what}`);
}

/** Bodies name the user who acts; only administrators may name someone other than themselves. */
export function requireActingFor(caller: Caller, userId: string): void {
  if (userId !== caller.user.id && !caller.isAdmin)
    throw forbidden('You may act only for yourself: user_id must be your own id');
}

async function roleOf(deps: Deps, userId: string | undefined): Promise<PermissionSetRow> {
  if (userId === undefined) {
    const visitors = await deps.store.permissionSets.getBySystemKey(SYSTEM_ROLES.visitors);
    if (!visitors) throw new Error('the Visitors permission set is missing');
    return visitors;
  }
  const user = await deps.store.users.getById(userId);
  if (!user) throw notFound('User');
  const set = await deps.store.permissionSets.getById(user.permission_set_id);
  if (!set) throw new Error(`permission set ${user.permission_set_id} is missing`);
  return set;
}

/** The permissions of a user, or of a non-connected visitor when no user is named. */
export async function permissionsOf(deps: Deps, userId?: string): Promise<Permissions> {
  return parsePermissions((await roleOf(deps, userId)).permissions);
}

