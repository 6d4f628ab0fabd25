import { listByIds } from './by-ids.js';
import { AppError, ErrorCode, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { listResult, type ListResult, type Pagination } from '../shared/schemas/common.js';
import { buildPermissions, type PartialPermissions, type Permissions } from '../shared/schemas/permissions.js';
import {
  roleNameKey,
  sameRoleName,
  type CreatePermissionSetInput,
  type PermissionSet,
  type SetUserRoleInput,
  type UpdatePermissionSetInput,
} from '../shared/schemas/roles.js';
import type { User } from '../shared/schemas/users.js';
import type { PermissionSetRow } from '../store/access.js';
import { SYSTEM_ROLES } from '../store/default-roles.js';
import { isUniqueViolation, readUniqueViolation } from '../store/errors.js';
import { recordAudit } from './audit.js';
import { nowIso, type Caller, type Deps } from './context.js';
import { parsePermissions, requireAdmin, requireGrantable, requirePermission, requireWithinOwn } from './permissions.js';
import { isLastUnsuspendedAdmin } from './suspensions.js';
import { toUserRecord } from './users.js';

export const toPermissionSetRecord = (row: PermissionSetRow): PermissionSet => ({
  id: row.id,
  name: row.name,
  show_as_tagline: row.show_as_tagline === 1,
  image_url: row.image_url,
  permissions: parsePermissions(row.permissions),
  is_default: row.system_key !== null,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

const nameTaken = () => new AppError(409, ErrorCode.conflict, 'A permission set already exists with that name');

/** A name already taken, whatever its case: by the exact index or by the one on `lower(name)` (migration 0008). */
const isNameTaken = (error: unknown) =>
  isUniqueViolation(error, 'permission_sets', 'name') || readUniqueViolation(error)?.index === 'permission_sets_lower_name_unique';

/**
 * Names are looked up whatever their case (`GET /users?role=`, the CLI's `--role`), so they are unique that way
 * too, and a name that looks like another is taken (`sameRoleName`): checked under a lock that writers of a name take
 * in turn (PostgreSQL), and held by the unique index on `lower(name)` (ASCII) besides, the second of two inserts then
 * failing with the same 409.
 */
async function requireFreeName(tx: Deps['store'], name: string, exceptId?: string): Promise<void> {
  // The index folds ASCII only (`Équipe` and `ÉQUIPE` both passed it at once): writers of a name take turns here.
  await tx.takeTurns('role names');
  if ((await tx.permissionSets.list()).some((s) => s.id !== exceptId && sameRoleName(s.name, name))) throw nameTaken();
}

async function findSet(deps: Deps, id: string): Promise<PermissionSetRow> {
  const row = await deps.store.permissionSets.getById(id);
  if (!row) throw notFound('Permission set');
  return row;
}

export async function listPermissionSets(
  deps: Deps,
  page: Pagination & { name?: string; ids?: string[] },
): Promise<ListResult<PermissionSet>> {
  if (page.ids) return listByIds(page.ids, page, (id) => getPermissionSet(deps, id));
  if (page.name === undefined) {
    const listed = await deps.store.permissionSets.page(page);
    return listResult(listed.rows.map(toPermissionSetRecord), listed);
  }
  // A name (any case, as `users?role=`) names one role at most: roles are few, and read whole for it.
  const name = roleNameKey(page.name);
  const rows = (await deps.store.permissionSets.list()).filter((s) => roleNameKey(s.name) === name);
  const start = (page.page - 1) * page.per_page;
  return { items: rows.slice(start, start + page.per_page).map(toPermissionSetRecord), total_items: rows.length };
}

export async function getPermissionSet(deps: Deps, id: string): Promise<PermissionSet> {
  return toPermissionSetRecord(await findSet(deps, id));
}

/** Creates a set; actions left out are false. */
export async function createPermissionSet(
  deps: Deps,
  caller: Caller,
  input: CreatePermissionSetInput,
): Promise<PermissionSet> {
  requirePermission(caller, 'users', 'add_roles');
  const permissions = buildPermissions(input.permissions as PartialPermissions | undefined);
  requireGrantable(caller, permissions);
  const now = nowIso(deps);
  const row: PermissionSetRow = {
    id: newId(),
    name: input.name,
    system_key: null,
    show_as_tagline: input.show_as_tagline ? 1 : 0,
    image_url: input.image_url ?? null,
    permissions: JSON.stringify(permissions),
    created_at: now,
    updated_at: now,
  };
  await deps.store.transaction(async (tx) => {
    await requireFreeName(tx, row.name);
    try {
      await tx.permissionSets.insert(row);
    } catch (error) {
      if (isNameTaken(error)) throw nameTaken();
      throw error;
    }
    await recordAudit(tx, now, caller, {
      action: 'permission_set.create',
      target_id: row.id,
      summary: `created the role ${row.name}`,
    });
  });
  return toPermissionSetRecord(row);
}

/** Updates a set (the defaults too); actions left out keep their value. */
export async function updatePermissionSet(
  deps: Deps,
  caller: Caller,
  id: string,
  input: UpdatePermissionSetInput,
): Promise<PermissionSet> {
  requirePermission(caller, 'users', 'edit_roles');
  return deps.store.transaction(async (tx) => {
    // Locked: the merge below reads the stored actions, so two partial updates at once must not both start from the
    // same row (the second would write back what the first turned on or off).
    const current = await tx.permissionSets.getLocked(id, 'update');
    if (!current) throw notFound('Permission set');
    // What administers the project is the Admins' to change: a delegate (users.edit_roles) could take their actions.
    if (current.system_key === SYSTEM_ROLES.admins) requireAdmin(caller, 'change the Admins set');
    const before = parsePermissions(current.permissions);
    requireWithinOwn(caller, before);
    let merged: Permissions | undefined;
    if (input.permissions !== undefined) {
      merged = buildPermissions(input.permissions as PartialPermissions, before);
      requireGrantable(caller, merged, before);
      // Kept on the Admins set: without can_use_api nobody could administer the API; without edit_roles no Admin could
      // change a role (setUserRole) nor give the set its edit back.
      if (current.system_key === SYSTEM_ROLES.admins && !merged.users.can_use_api)
        throw new AppError(409, ErrorCode.conflict, 'The Admins set keeps users.can_use_api: without it nobody could administer the API');
      if (current.system_key === SYSTEM_ROLES.admins && !merged.users.edit_roles)
        throw new AppError(409, ErrorCode.conflict, "The Admins set keeps users.edit_roles: without it no administrator could change users' roles or give it back");
    }
    const changes: Partial<PermissionSetRow> = { updated_at: nowIso(deps) };
    if (input.name !== undefined) {
      await requireFreeName(tx, input.name, id);
      changes.name = input.name;
    }
    if (input.show_as_tagline !== undefined) changes.show_as_tagline = input.show_as_tagline ? 1 : 0;
    if (input.image_url !== undefined) changes.image_url = input.image_url;
    if (merged) changes.permissions = JSON.stringify(merged);
    try {
      await tx.permissionSets.update(id, changes);
    } catch (error) {
      if (isNameTaken(error)) throw nameTaken();
      throw error;
    }
    const changed = Object.keys(changes).filter((k) => k !== 'updated_at');
    await recordAudit(tx, changes.updated_at!, caller, {
      action: 'permission_set.update',
      target_id: id,
      summary: `updated the role ${current.name}${changes.name && changes.name !== current.name ? ` (now ${changes.name})` : ''}${changed.length ? `: ${changed.join(', ')}` : ''}`,
    });
    return toPermissionSetRecord({ ...current, ...changes });
  });
}

/** Deletes a set that is neither a default nor anybody's role. */
export async function deletePermissionSet(deps: Deps, caller: Caller, id: string): Promise<void> {
  requirePermission(caller, 'users', 'destroy_roles');
  await deps.store.transaction(async (tx) => {
    // Locked: a user given this role meanwhile (by another process) waits, then finds it gone.
    const row = await tx.permissionSets.getLocked(id, 'update');
    if (!row) throw notFound('Permission set');
    // A role granting more than the delegate's is the Admins' to delete, as to change (one made ready to give out).
    requireWithinOwn(caller, parsePermissions(row.permissions));
    if (row.system_key !== null)
      throw new AppError(409, ErrorCode.defaultPermissionSet, `${row.name} is a default permission set: it can be edited, not deleted`);
    // Counted as `GET /users?role=` counts them: a kept count, whatever the number.
    const { total: users } = await tx.users.list({ role: id }, { page: 1, per_page: 1 });
    if (users > 0)
      throw new AppError(409, ErrorCode.permissionSetInUse, `This permission set is the role of ${users} user(s): give them another role first`);
    await tx.permissionSets.delete(id);
    await recordAudit(tx, nowIso(deps), caller, {
      action: 'permission_set.delete',
      target_id: id,
      summary: `deleted the role ${row.name}`,
    });
  });
}

/** Changes a user's role (project administrators with users.edit_roles). The last unsuspended administrator stays one. */
export async function setUserRole(deps: Deps, caller: Caller, userId: string, input: SetUserRoleInput): Promise<User> {
  requireAdmin(caller, "change users' roles");
  requirePermission(caller, 'users', 'edit_roles');
  const row = await deps.store.transaction(async (tx) => {
    // Held first: the role read here decides the last-Admin check and the audit entry's "from"; changes racing on
    // PostgreSQL each read the old role, and each logged a change from it (and a demotion could pass the check on a
    // role another change had just replaced).
    if (!(await tx.users.hold(userId, 'write'))) throw notFound('User');
    const user = await tx.users.getById(userId);
    if (!user) throw notFound('User');
    // The new role cannot be deleted while it is given; the Admins set is locked while its members are
    // counted, so two demotions racing in two processes cannot both leave "another administrator".
    const set = await tx.permissionSets.getLocked(input.permission_set_id, 'share');
    if (!set) throw notFound('Permission set');
    // The role they have already: nothing to change, nor to log.
    if (user.permission_set_id === set.id) return user;
    const now = nowIso(deps);
    if (set.system_key !== SYSTEM_ROLES.admins && (await isLastUnsuspendedAdmin(tx, now, user)))
      throw new AppError(
        409,
        ErrorCode.lastAdmin,
        'This user is the last administrator who is not suspended: make another user an administrator (or lift a suspension) first',
      );
    await tx.users.setRole(userId, set.id, now);
    await recordAudit(tx, now, caller, {
      action: 'user.role_change',
      target_id: userId,
      summary: `changed ${user.nickname}'s role from ${user.role_name} to ${set.name}`,
    });
    return tx.users.getById(userId);
  });
  return toUserRecord(row!, caller, deps.clock());
}
