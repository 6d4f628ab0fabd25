import { z } from 'zod';

/** Every category and action the spec names; a permission set holds one boolean per action. */
export const PERMISSION_CATALOGUE = {
  posts: ['any', 'newsletter', 'edit', 'index', 'create', 'show', 'destroy', 'moderate', 'seo', 'validate'],
  users: [
    'edit',
    'destroy',
    'export',
    'import',
    'multi_sectors',
    'index',
    'landing',
    'show',
    'add_roles',
    'edit_roles',
    'destroy_roles',
    'can_use_api',
  ],
  statuses: [
    'any',
    'edit',
    'index',
    'create',
    'show',
    'destroy',
    'moderate',
    'seo',
    'landing',
    'in_profile',
    'publish_as',
    'publish_in',
    'pin',
  ],
} as const;

export type PermissionCategory = keyof typeof PERMISSION_CATALOGUE;
export type PermissionAction<C extends PermissionCategory> = (typeof PERMISSION_CATALOGUE)[C][number];
export type Permissions = { [C in PermissionCategory]: Record<PermissionAction<C>, boolean> };
export type PartialPermissions = { [C in PermissionCategory]?: Partial<Record<PermissionAction<C>, boolean>> };

const categorySchema = (actions: readonly string[]) =>
  z.object(Object.fromEntries(actions.map((a) => [a, z.boolean()])));

export const PermissionsSchema = z
  .object({
    posts: categorySchema(PERMISSION_CATALOGUE.posts),
    users: categorySchema(PERMISSION_CATALOGUE.users),
    statuses: categorySchema(PERMISSION_CATALOGUE.statuses),
  })
  .meta({
    id: 'Permissions',
    description: 'Per category, each action granted (true) or not',
    examples: [buildPermissions({ users: { can_use_api: true, index: true, show: true }, statuses: { index: true, show: true, create: true } })],
  });

/** Builds a full permissions object: every action false except the ones granted. */
export function buildPermissions(granted: PartialPermissions = {}, base?: Permissions): Permissions {
  const out = {} as Record<string, Record<string, boolean>>;
  for (const [category, actions] of Object.entries(PERMISSION_CATALOGUE)) {
    const given = (granted as Record<string, Record<string, boolean> | undefined>)[category] ?? {};
    const previous = (base as Record<string, Record<string, boolean>> | undefined)?.[category] ?? {};
    out[category] = Object.fromEntries(actions.map((a) => [a, given[a] ?? previous[a] ?? false]));
  }
  return out as Permissions;
}

export const PermissionsQuery = z.object({ user_id: z.string().trim().min(1).max(64).optional() });
