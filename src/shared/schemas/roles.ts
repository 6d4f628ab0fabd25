import { z } from 'zod';
import { lookalikeKey, nameKey } from '../latin-lookalikes.js';
import { formBoolean, Id, idInput, idsQuery, listOf, PaginationQuery, queryText, text, Timestamp, typeError } from './common.js';
import { EXAMPLE_ID } from './examples.js';
import { buildPermissions, PERMISSION_CATALOGUE, PermissionsSchema } from './permissions.js';

/** Names the keys that are not in the catalogue, and the ones that are. */
const unknownKeys = (what: string, known: readonly string[], otherwise: (issue: { input?: unknown }) => string | undefined) =>
  (issue: { code?: string; keys?: string[]; input?: unknown }) =>
    issue.code === 'unrecognized_keys'
      ? `unknown ${what}${issue.keys && issue.keys.length > 1 ? 's' : ''} ${(issue.keys ?? []).map((k) => `"${k}"`).join(', ')} (known: ${known.join(', ')})`
      : otherwise(issue);

/** A partial permissions object: known categories and actions only, booleans only. */
const PartialPermissionsInput = z.preprocess(
  (v) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return v;
    }
  },
  z.strictObject(
    Object.fromEntries(
      Object.entries(PERMISSION_CATALOGUE).map(([category, actions]) => [
        category,
        z
          .strictObject(Object.fromEntries(actions.map((a) => [a, formBoolean.optional()])), {
            error: unknownKeys(`${category} action`, actions, typeError('an object mapping actions to booleans').error),
          })
          .optional(),
      ]),
    ),
    {
      error: unknownKeys(
        'permission category',
        Object.keys(PERMISSION_CATALOGUE),
        typeError('an object of categories, each mapping actions to booleans').error,
      ),
    },
  ).meta({ id: 'PermissionsInput', description: 'Per category, the actions to grant (true) or withhold (false); in forms, as JSON' }),
);

const imageUrl = z.preprocess(
  (v) => (v === '' ? null : v),
  z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048).nullable().optional(),
);

/**
 * What makes two role names one: compatibility-normalised (a fullwidth `Ａｄｍｉｎｓ` is `Admins`), whatever the case,
 * as nicknames are. Names are looked up this way (`?role=`, `?name=`, the CLI's `--role`) and unique this way.
 */
export const roleNameKey = nameKey;

/**
 * Two role names are one, and a second is refused (409), when their `roleNameKey`s are equal, or once Cyrillic and
 * Greek letters that look like Latin ones are read as those (`Аdmins` with a Cyrillic А is `Admins`): an Admin
 * shown both could not tell them apart. Both tests, as a letter may look like a Latin one in one case only (Greek
 * `Ν` and `ν` are one letter, looking like N and v). Lookups stay by `roleNameKey`, which names one role at most.
 */
export const sameRoleName = (a: string, b: string): boolean =>
  roleNameKey(a) === roleNameKey(b) || lookalikeKey(a) === lookalikeKey(b);

/** A role's name: shown beside users as who they are, so nothing in it may be invisible (a zero-width `Admins`). */
const roleName = text(100).refine(
  (name) => !/\p{Default_Ignorable_Code_Point}/u.test(name),
  'must not contain invisible characters (zero-width spaces and joiners, direction marks)',
);

export const CreatePermissionSetInput = z.object({
  name: roleName,
  show_as_tagline: formBoolean.optional(),
  image_url: imageUrl,
  permissions: PartialPermissionsInput.optional(),
}).meta({
  id: 'CreatePermissionSetInput',
  description: 'Actions left out are not granted',
  examples: [{ name: 'Moderators', show_as_tagline: true, permissions: { statuses: { moderate: true, index: true, show: true } } }],
});
export type CreatePermissionSetInput = z.infer<typeof CreatePermissionSetInput>;

export const UpdatePermissionSetInput = z.object({
  name: roleName.optional(),
  show_as_tagline: formBoolean.optional(),
  image_url: imageUrl,
  permissions: PartialPermissionsInput.optional(),
}).meta({
  id: 'UpdatePermissionSetInput',
  description: 'Fields and actions left out keep their value',
  examples: [{ permissions: { posts: { moderate: true } } }],
});
export type UpdatePermissionSetInput = z.infer<typeof UpdatePermissionSetInput>;

export const ListPermissionSetsQuery = PaginationQuery.extend({ name: queryText, ids: idsQuery });
export type ListPermissionSetsQuery = z.infer<typeof ListPermissionSetsQuery>;

export const PermissionSetSchema = z.object({
  id: Id,
  name: z.string(),
  show_as_tagline: z.boolean(),
  image_url: z.string().nullable(),
  permissions: PermissionsSchema,
  is_default: z.boolean().describe('Admins, Members and Visitors: editable, never deleted'),
  created_at: Timestamp,
  updated_at: Timestamp,
}).meta({
  id: 'PermissionSet',
  examples: [
    {
      id: EXAMPLE_ID.members,
      name: 'Members',
      show_as_tagline: false,
      image_url: null,
      permissions: buildPermissions({ users: { can_use_api: true, index: true, show: true } }),
      is_default: true,
      created_at: '2026-11-20T10:00:00.000Z',
      updated_at: '2026-11-20T10:00:00.000Z',
    },
  ],
});
export type PermissionSet = z.infer<typeof PermissionSetSchema>;
export const PermissionSetListSchema = listOf(PermissionSetSchema);

export const SetUserRoleInput = z
  .object({ permission_set_id: idInput })
  .meta({ id: 'SetUserRoleInput', examples: [{ permission_set_id: EXAMPLE_ID.members }] });
export type SetUserRoleInput = z.infer<typeof SetUserRoleInput>;

