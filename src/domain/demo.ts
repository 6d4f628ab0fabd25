import { randomBytes } from 'node:crypto';
import { newId } from '../shared/ids.js';
import type { Privacy } from '../shared/schemas/pages.js';
import { SYSTEM_ROLES } from '../store/default-roles.js';
import { createAccessRequest } from './access-requests.js';
import { ensureBootstrapAdmin } from './api-keys.js';
import { createComment, createLike, createStatus } from './content.js';
import { createReport } from './reports.js';
import { nowIso, type Caller, type Deps } from './context.js';
import { answerEvent, createEvent } from './events.js';
import { createFollow } from './follows.js';
import { parsePermissions } from './permissions.js';
import { hashSecret } from './secrets.js';
import { freeSlug, slugify } from './slugs.js';

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
  const userIds: string[] = [];
  const pageIds: string[] = [];
  await deps.store.transaction(async (tx) => {
    const members = await tx.permissionSets.getBySystemKey(SYSTEM_ROLES.members);
    if (!members) throw new Error('the Members permission set is missing');
    const now = nowIso(deps);
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
      tx.follows.insertIfAbsent({ id: newId(), user_id: userId, followable_type: type, followable_id: targetId, created_at: now });
    for (const [name, privacy, ownerIndex] of PAGES) {
      const id = newId();
      pageIds.push(id);
      const owner = userIds[ownerIndex]!;
      await tx.pages.insert({
        id,
        name,
        // The secret page's slug as createPage gives it (slugs.ts): the plain one would tell of it (`board-room-2`).
        slug: await freeSlug(slugify(name, 'page'), privacy === 'secret' ? id : undefined, (prefix) => tx.pages.slugsStartingWith(prefix)),
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
  });
  await seedDemoContent(deps, adminId, userIds, pageIds);
  return true;
}

/** A user as the caller of a domain function, as a request signed with their key would be. */
async function callerFor(deps: Deps, userId: string): Promise<Caller> {
  const row = await deps.store.users.getWithPermissions(userId);
  if (!row) throw new Error(`demo user ${userId} is missing`);
  const { role_permissions, ...user } = row;
  return { user, permissions: parsePermissions(role_permissions), isAdmin: user.role_system_key === SYSTEM_ROLES.admins };
}

/**
 * Content made through the same rules as the API's, so that the notifications are the real ones: the
 * administrator (who logs in with the demo key) finds a follower, a comment, a like, a request to accept
 * and answers to their event waiting in `agora notifications list`.
 */
async function seedDemoContent(deps: Deps, adminId: string, userIds: string[], pageIds: string[]): Promise<void> {
  const [ada, grace, alan, katherine, linus] = await Promise.all(userIds.map((id) => callerFor(deps, id)));
  const admin = await callerFor(deps, adminId);
  const [garden, bookCircle] = pageIds as [string, string, string];
  await createFollow(deps, ada!, { followable_type: 'User', followable_id: adminId, user_id: ada!.user.id });
  const welcome = await createStatus(deps, admin, {
    user_id: adminId,
    content: 'Welcome to agora! Introduce yourself in the Garden Club.',
  });
  await createComment(deps, grace!, { user_id: grace!.user.id, status_id: welcome.id, content: 'Glad to be here. The tomatoes say hello.' });
  await createLike(deps, alan!, { user_id: alan!.user.id, status_id: welcome.id });
  const seedlings = await createStatus(deps, ada!, {
    user_id: ada!.user.id,
    page_id: garden,
    content: 'Seedling swap on Saturday: bring what you have too many of.',
  });
  await createComment(deps, katherine!, { user_id: katherine!.user.id, status_id: seedlings.id, content: 'I will bring basil.' });
  await createLike(deps, grace!, { user_id: grace!.user.id, status_id: seedlings.id });
  await createAccessRequest(deps, linus!, { page_id: bookCircle, user_id: linus!.user.id });
  // An open report, so that the moderation loop (reports list, resolve, the queue) has something to settle.
  const spam = await createStatus(deps, linus!, { user_id: linus!.user.id, content: 'Get 10,000 followers overnight! DM me for a deal.' });
  await createReport(deps, grace!, { user_id: grace!.user.id, target_type: 'Status', target_id: spam.id, reason: 'spam', comment: 'Advertising, not gardening.' });
  const start = new Date(deps.clock().getTime() + 14 * 24 * 3600 * 1000);
  start.setUTCHours(9, 0, 0, 0);
  const event = await createEvent(deps, admin, {
    name: 'Spring planting day',
    user_id: adminId,
    page_id: garden,
    description: 'Planting the community beds together; lunch provided.',
    start_date: start.toISOString(),
    end_date: new Date(start.getTime() + 7 * 3600 * 1000).toISOString(),
    places_limit: 20,
    tickets: [
      { name: 'Standard', price: '12.50', currency: 'EUR' },
      { name: 'Supporter', price: '25.00', currency: 'EUR' },
    ],
  });
  await answerEvent(deps, katherine!, event.id, { user_id: katherine!.user.id, answer: 'yes' });
  await answerEvent(deps, ada!, event.id, { user_id: ada!.user.id, answer: 'yes' });
  await answerEvent(deps, alan!, event.id, { user_id: alan!.user.id, answer: 'maybe' });
}
