import type { Suspension } from '../shared/schemas/suspensions.js';
import type { SuspensionRow } from '../store/suspensions.js';
import { listByIds } from './by-ids.js';
import { shieldedCell } from '../shared/csv-cells.js';
import { AppError, ErrorCode, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { listResult, type ListResult } from '../shared/schemas/common.js';
import { EXPORT_COLUMNS, type CreateUserInput, type ExportedUser, type ListUsersQuery, type User } from '../shared/schemas/users.js';
import { SYSTEM_ROLES } from '../store/default-roles.js';
import { isUniqueViolation } from '../store/errors.js';
import type { UserWithRole } from '../store/users.js';
import { recordAudit } from './audit.js';
import { nowIso, type Caller, type Deps } from './context.js';
import { requirePermission } from './permissions.js';
import { hashSecret } from './secrets.js';
import { nextFreeSlug, retryingSlugRace, slugify } from './slugs.js';

export const EMAIL_TAKEN = 'A user already exist with that email';

/** The user record as the API shows it; the email only to the user themself and to administrators. */
export function toUserRecord(row: UserWithRole, viewer: Caller | undefined, now: Date): User {
  const fullname = `${row.first_name} ${row.last_name}`;
  const showEmail = viewer && (viewer.isAdmin || viewer.user.id === row.id);
  return {
    id: row.id,
    first_name: row.first_name,
    last_name: row.last_name,
    nickname: row.nickname,
    name: fullname,
    fullname,
    slug: row.slug,
    ...(showEmail ? { email: row.email } : {}),
    permission_set_id: row.permission_set_id,
    tagline: row.role_show_as_tagline ? { name: row.role_name, image_url: row.role_image_url } : null,
    suspension: suspensionOf(row, now),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The suspension in force at `now` from the row's joined columns, else null. */
export function suspensionOf(row: UserWithRole, now: Date): Suspension | null {
  if (row.suspension_reason == null || row.suspension_created_at == null || row.suspension_created_by == null) return null;
  const s = { reason: row.suspension_reason, until: row.suspension_until ?? null, created_at: row.suspension_created_at, created_by: row.suspension_created_by };
  return toSuspension(s, now);
}

/**
 * Creates a user with the role Members. Uniqueness of email, nickname (and of what it looks like) and slug is the
 * schema's: a race between two identical creates ends in one record and one 409.
 */
export async function createUser(deps: Deps, caller: Caller, input: CreateUserInput): Promise<User> {
  requirePermission(caller, 'users', 'import');
  const passwordHash = await hashSecret(input.password);
  const base = slugify(input.nickname, 'user');
  const create = () => deps.store.transaction(async (tx) => {
    const members = await tx.permissionSets.getBySystemKey(SYSTEM_ROLES.members);
    if (!members) throw new Error('the Members permission set is missing');
    const now = nowIso(deps);
    const id = newId();
    try {
      await tx.users.insert({
        id,
        first_name: input.first_name,
        last_name: input.last_name,
        nickname: input.nickname,
        email: input.email,
        password_hash: passwordHash,
        permission_set_id: members.id,
        slug: nextFreeSlug(base, await tx.users.slugsStartingWith(base)),
        conditions_accepted_at: now,
        confidentiality_accepted_at: now,
        created_at: now,
        updated_at: now,
      });
    } catch (error) {
      if (isUniqueViolation(error, 'users', 'email')) throw new AppError(409, ErrorCode.emailTaken, EMAIL_TAKEN);
      // The nickname as written, whatever its case, or looking like one taken (`аda` with a Cyrillic а beside `ada`).
      if (['nickname', 'nickname_key', 'nickname_skeleton'].some((column) => isUniqueViolation(error, 'users', column)))
        throw new AppError(409, ErrorCode.nicknameTaken, 'A user already exist with that nickname');
      throw error;
    }
    await recordAudit(tx, now, caller, {
      action: 'user.create',
      target_id: id,
      summary: `created the user ${input.nickname}`,
    });
    return tx.users.getById(id);
  });
  const row = await retryingSlugRace('users', create);
  if (!row) throw new Error('user vanished after insert');
  return toUserRecord(row, caller, deps.clock());
}

export async function getUser(deps: Deps, caller: Caller, id: string): Promise<User> {
  if (id !== caller.user.id) requirePermission(caller, 'users', 'show');
  const row = await deps.store.users.getById(id);
  if (!row) throw notFound('User');
  return toUserRecord(row, caller, deps.clock());
}

export async function listUsers(deps: Deps, caller: Caller, query: ListUsersQuery): Promise<ListResult<User>> {
  requirePermission(caller, 'users', 'index');
  if (query.ids) {
    const rows = new Map((await deps.store.users.getByIds(query.ids)).map((row) => [row.id, row]));
    const now = deps.clock();
    return listByIds(query.ids, query, async (id) => {
      const row = rows.get(id);
      if (!row) throw notFound('User');
      return toUserRecord(row, caller, now);
    });
  }
  // A role is named by id or by name; an unknown one matches nobody.
  const role = query.role === undefined ? undefined : ((await deps.store.permissionSets.findByRef(query.role))?.id ?? query.role);
  const now = deps.clock();
  const suspended = query.suspended === undefined ? undefined : { now: now.toISOString(), is: query.suspended === 'true' };
  const listed = await deps.store.users.list({ nickname: query.nickname, role, suspended }, query);
  return listResult(
    listed.rows.map((r) => toUserRecord(r, caller, now)),
    listed,
  );
}

/** Free as a new user's would be: no user holds it, whatever its case, nor a nickname that looks like it. */
export async function isNicknameAvailable(deps: Deps, nickname: string): Promise<boolean> {
  return !(await deps.store.users.isNicknameTaken(nickname));
}

export type ExportFormat = 'ndjson' | 'csv';

const EXPORT_BATCH = 500;

/**
 * Every user the caller may see, as NDJSON lines or CSV rows (with a header), read from the store in batches
 * so that memory stays flat however many there are. Never a password or its hash.
 */
export async function* exportUsers(
  deps: Deps,
  caller: Caller,
  format: ExportFormat,
  /** The caller as their key reads now (as a new request's): asked before each batch after the first. */
  callerNow?: () => Promise<Caller>,
): AsyncGenerator<string> {
  requirePermission(caller, 'users', 'export');
  if (format === 'csv') yield `${EXPORT_COLUMNS.join(',')}\r\n`;
  let after: string | undefined;
  for (;;) {
    // An export takes as long as its reader: one whose key was revoked, who was suspended or whose role no longer
    // exports meanwhile gets no further batch (thrown: the answer is cut, not ended as a whole one).
    if (after !== undefined && callerNow) {
      caller = await callerNow();
      requirePermission(caller, 'users', 'export');
    }
    const rows = await deps.store.users.listAfter(after, EXPORT_BATCH);
    if (rows.length === 0) return;
    let chunk = '';
    const now = deps.clock();
    for (const row of rows) {
      const user = toUserRecord(row, caller, now);
      const record: ExportedUser = {
        id: user.id,
        first_name: user.first_name,
        last_name: user.last_name,
        nickname: user.nickname,
        email: user.email ?? null,
        role: row.role_name,
        // Stored as the moment each was accepted: every user has accepted both.
        accept_conditions: Boolean(row.conditions_accepted_at),
        accept_confidentiality: Boolean(row.confidentiality_accepted_at),
        created_at: user.created_at,
      };
      chunk += format === 'csv' ? `${EXPORT_COLUMNS.map((c) => csvCell(record[c])).join(',')}\r\n` : `${JSON.stringify(record)}\n`;
    }
    yield chunk;
    after = rows[rows.length - 1]!.id;
  }
}

/**
 * RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. A text a spreadsheet would
 * run as a formula is written after a `'` (`shieldedCell`), which `agora users import` takes off again, so an export
 * still imports as it was.
 */
function csvCell(value: string | boolean | null): string {
  const text = shieldedCell(value === null ? '' : String(value));
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Whether a suspension is in force at `now` (one past its `until` is over by itself). */
export const inForce = (s: { until: string | null } | null | undefined, now: Date): boolean =>
  !!s && (s.until === null || Date.parse(s.until) > now.getTime());

const toSuspension = (s: Pick<SuspensionRow, 'reason' | 'until' | 'created_at' | 'created_by'>, now: Date): Suspension | null =>
  inForce(s, now) ? { reason: s.reason, until: s.until, created_at: s.created_at, created_by: s.created_by } : null;
