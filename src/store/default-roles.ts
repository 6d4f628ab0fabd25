/** The `system_key`s of the three permission sets that exist from the start (migration 0001 writes them). */
export const SYSTEM_ROLES = { admins: 'admins', members: 'members', visitors: 'visitors' } as const;
