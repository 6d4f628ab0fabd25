import { randomBytes } from 'node:crypto';
import { newId } from '../shared/ids.js';
import type { Privacy } from '../shared/schemas/pages.js';
import { SYSTEM_ROLES } from '../store/default-roles.js';
import { ensureBootstrapAdmin } from './api-keys.js';
import { nowIso, type Deps } from './context.js';
import { hashSecret } from './secrets.js';

const PEOPLE = [
  ['Ada', 'Lovelace', 'ada'],
  ['Grace', 'Hopper', 'grace'],
  ['Alan', 'Turing', 'alan'],
  ['Katherine', 'Johnson', 'katherine'],
  ['Linus', 'Torvalds', 'linus'],
] as const;

const PAGES: [string, Privacy, number][] = [
  ['Garden Club', 'public', 0],
  ['Book Circle', 'private', 1],
  ['Board Room', 'secret', 2],
];

/** Seeds a small community on an empty store; answers false (and does nothing) when users already exist. */
export async function seedDemo(deps: Deps): Promise<boolean> {
  const adminId = await ensureBootstrapAdmin(deps);
  const existing = await deps.store.users.list({}, { page: 1, per_page: 2 });
  if (existing.total > 1) return false;
  const passwordHash = await hashSecret(randomBytes(16).toString('hex'));
  await deps.store.transaction(async (tx) => {
    const members = await tx.permissionSets.getBySystemKey(SYSTEM_ROLES.members);
    if (!members) throw new Error('the Members permission set is missing');
    const now = nowIso(deps);
    const userIds: string[] = [];
    for (const [first, last, nickname] of PEOPLE) {
      const id = newId();
      userIds.push(id);
      await tx.users.insert({
        id,
        first_name: first,
        last_name: last,
        nickname,
        email: `${nickname}@example.org`,
        password_hash: passwordHash,
        permission_set_id: members.id,
        slug: nickname,
        conditions_accepted_at: now,
        confidentiality_accepted_at: now,
        created_at: now,
        updated_at: now,
      });
    }
    const configId = newId();
    await tx.pageConfigurations.insert({
      id: configId,
      name: 'Community',
      description: 'Pages gathering members around a shared interest',
      created_at: now,
      updated_at: now,
    });
    const follow = (userId: string, type: 'Page' | 'User', targetId: string) =>
      tx.follows.insert({ id: newId(), user_id: userId, followable_type: type, followable_id: targetId, created_at: now });
    for (const [name, privacy, ownerIndex] of PAGES) {
      const id = newId();
      const owner = userIds[ownerIndex]!;
      await tx.pages.insert({
        id,
        name,
        slug: name.toLowerCase().replace(/\s+/g, '-'),
        description: `The ${privacy} page of the ${name.toLowerCase()}`,
        privacy,
        page_configuration_id: configId,
        user_id: owner,
        created_at: now,
        updated_at: now,
      });
      await follow(owner, 'Page', id);
      if (privacy === 'public') for (const other of userIds.slice(1)) await follow(other, 'Page', id);
    }
    await follow(userIds[1]!, 'User', userIds[0]!);
    await follow(userIds[2]!, 'User', userIds[0]!);
    await follow(userIds[0]!, 'User', adminId);
  });
  return true;
}
