/**
 * The spec's permissions table, written out here on purpose (not imported from src/): the tests check
 * the server against the spec, not against itself.
 */
export const SPEC_PERMISSIONS = {
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
