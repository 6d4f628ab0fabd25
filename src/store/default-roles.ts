import { allPermissions, buildPermissions, type Permissions } from '../shared/schemas/permissions.js';

export const SYSTEM_ROLES = { admins: 'admins', members: 'members', visitors: 'visitors' } as const;
export type SystemRole = (typeof SYSTEM_ROLES)[keyof typeof SYSTEM_ROLES];

const everyday = { index: true, show: true, create: true, edit: true, destroy: true };
const readOnly = { index: true, show: true };

/** The three permission sets that exist from the start (docs/api.md, "Resources"). */
export const DEFAULT_ROLES: { systemKey: SystemRole; name: string; permissions: Permissions }[] = [
  { systemKey: 'admins', name: 'Admins', permissions: allPermissions() },
  {
    systemKey: 'members',
    name: 'Members',
    permissions: buildPermissions({
      posts: everyday,
      statuses: everyday,
      users: { can_use_api: true, index: true, show: true },
    }),
  },
  {
    systemKey: 'visitors',
    name: 'Visitors',
    permissions: buildPermissions({ posts: readOnly, statuses: readOnly, users: readOnly }),
  },
];
