import { forbidden, notFound } from '../shared/errors.js';
import { SYSTEM_ROLES } from '../store/default-roles.js';
import type { EventRow } from '../store/events.js';
import type { PageRow, Viewer } from '../store/pages.js';
import type { StatusRow } from '../store/content.js';
import type { Store } from '../store/store.js';
import type { UserWithRole } from '../store/users.js';
import type { Caller } from './context.js';
import { findVisiblePage, isMember } from './pages.js';

/**
 * Who may read and post content: a page's statuses are for its members (a public page's for everyone), a
 * secret page and what is in it do not exist for outsiders (404), and an event's conversation is open to its
 * creator and to those who answered yes or maybe. Project administrators see everything.
 */

export const viewerOf = (caller: Caller): Viewer => ({ id: caller.user.id, isAdmin: caller.isAdmin });

/**
 * The user a body names as acting (the caller, or someone an Admin acts for), read once: the record, and the
 * same user as a viewer of content. 404 when there is no such user.
 */
export async function actingUser(store: Store, caller: Caller, userId: string): Promise<{ user: UserWithRole; viewer: Viewer }> {
  const user = await store.users.getById(userId);
  if (!user) throw notFound('User');
  const viewer = userId === caller.user.id ? viewerOf(caller) : { id: user.id, isAdmin: user.role_system_key === SYSTEM_ROLES.admins };
  return { user, viewer };
}

const inPage = async (store: Store, viewer: Viewer, page: PageRow) =>
  viewer.isAdmin || page.user_id === viewer.id || (await isMember(store, viewer.id, page.id));

/** A page the viewer may know of: 404 for a secret page they are not in (the one rule, `findVisiblePage`). */
export const pageKnownTo = (store: Store, viewer: Viewer, pageId: string): Promise<PageRow> =>
  findVisiblePage(store, viewer, pageId);

/** Reading a page's content: its members; anyone for a public page. */
export async function requireReadPage(store: Store, viewer: Viewer, page: PageRow): Promise<void> {
  if (page.privacy === 'public' || (await inPage(store, viewer, page))) return;
  throw forbidden(`This page is ${page.privacy}: its content is for its members`);
}

/** Posting in a page: its members (and its administrators). */
export async function requirePostInPage(store: Store, viewer: Viewer, page: PageRow): Promise<void> {
  if (await inPage(store, viewer, page)) return;
  throw forbidden('Only members of the page may post in it: follow it (or ask to join) first');
}

/** An event the viewer may know of: an event in a secret page is as hidden as the page. */
export async function eventKnownTo(store: Store, viewer: Viewer, eventId: string): Promise<EventRow> {
  const event = await store.events.getById(eventId);
  if (!event) throw notFound('Event');
  if (event.page_id) {
    try {
      await pageKnownTo(store, viewer, event.page_id);
    } catch {
      throw notFound('Event');
    }
  }
  return event;
}

export async function inConversation(store: Store, viewer: Viewer, event: EventRow): Promise<boolean> {
  if (viewer.isAdmin || event.user_id === viewer.id) return true;
  const answer = (await store.attendances.find(event.id, viewer.id))?.answer;
  return answer === 'yes' || answer === 'maybe';
}

export async function requireConversation(store: Store, viewer: Viewer, event: EventRow): Promise<void> {
  if (!(await inConversation(store, viewer, event)))
    throw forbidden("This event's conversation is open to its creator and to those who answered yes or maybe");
}

/**
 * Content by an author suspended at `now` is hidden from all but Admins (404, as if it did not exist); the
 * same rule as the lists' `contentVisible`.
 */
export async function authorShown(store: Store, viewer: Viewer, authorId: string, now?: string): Promise<boolean> {
  if (viewer.isAdmin || now === undefined) return true;
  const s = await store.suspensions.get(authorId);
  return !s || (s.until !== null && s.until <= now);
}

/** A status the viewer may read, or 404 (hidden) / 403 (known but not theirs to read). */
export async function readableStatus(store: Store, viewer: Viewer, statusId: string, now?: string): Promise<StatusRow> {
  const status = await store.statuses.getById(statusId);
  if (!status || !(await authorShown(store, viewer, status.user_id, now))) throw notFound('Status');
  try {
    if (status.page_id) await requireReadPage(store, viewer, await pageKnownTo(store, viewer, status.page_id));
    if (status.event_id) await requireConversation(store, viewer, await eventKnownTo(store, viewer, status.event_id));
  } catch (error) {
    if ((error as { status?: number }).status === 404) throw notFound('Status');
    throw error;
  }
  return status;
}
