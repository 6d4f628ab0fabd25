import { listByIds } from './by-ids.js';
import { AppError, ErrorCode, forbidden, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { listResult, type ListResult } from '../shared/schemas/common.js';
import type {
  Attendance,
  AttendanceInput,
  AttendanceResult,
  CreateEventInput,
  Event,
  ListAttendeesQuery,
  ListEventsQuery,
  Ticket,
} from '../shared/schemas/events.js';
import type { AttendanceRow, EventRow } from '../store/events.js';
import type { Store } from '../store/store.js';
import type { WithUser } from '../store/users.js';
import type { Viewer } from '../store/visibility.js';
import { actingUser, eventKnownTo, eventPageClosedTo, pageKnownTo, requirePostInPage, viewerById } from './content-access.js';
import { nowIso, viewerOf, type Caller, type Deps } from './context.js';
import { eventRef, notifyUsers, userRef } from './notifications.js';
import { requireActingFor } from './permissions.js';
import { freeSlug, retryingSlugRace, slugify } from './slugs.js';
import { loadEmbeds } from './records.js';

export const toEventRecord = (row: EventRow): Event => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  description: row.description,
  user_id: row.user_id,
  page_id: row.page_id,
  start_date: row.start_date,
  end_date: row.end_date,
  places_limit: row.places_limit,
  places_left: row.places_limit === null ? null : Math.max(0, row.places_limit - row.attendees_count),
  attendees_count: row.attendees_count,
  tickets: JSON.parse(row.tickets) as Ticket[],
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** Creates a gathering event (in a page the creator is in, when `page_id` is given). Past events are allowed: history is imported too. */
export async function createEvent(deps: Deps, caller: Caller, input: CreateEventInput): Promise<Event> {
  requireActingFor(caller, input.user_id);
  const base = slugify(input.name, 'event');
  const create = () => deps.store.transaction(async (tx) => {
    const { viewer } = await actingUser(tx, caller, input.user_id);
    const page = input.page_id ? await pageKnownTo(tx, viewer, input.page_id) : undefined;
    if (page) await requirePostInPage(tx, viewer, page);
    const now = nowIso(deps);
    const id = newId();
    const event: EventRow = {
      id,
      name: input.name,
      // An event in a secret page is as hidden as the page: its slug tells nobody else it exists.
      slug: await freeSlug(base, page?.privacy === 'secret' ? id : undefined, (prefix) => tx.events.slugsStartingWith(prefix)),
      description: input.description ?? null,
      user_id: input.user_id,
      page_id: input.page_id ?? null,
      start_date: input.start_date,
      end_date: input.end_date,
      places_limit: input.places_limit ?? null,
      attendees_count: 0,
      tickets: JSON.stringify(input.tickets ?? []),
      created_at: now,
      updated_at: now,
    };
    await tx.events.insert(event);
    return event;
  });
  const row = await retryingSlugRace('events', create);
  return toEventRecord(row);
}

export async function getEvent(deps: Deps, caller: Caller, id: string): Promise<Event> {
  return toEventRecord(await eventKnownTo(deps.store, viewerOf(caller), id));
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Events, soonest first. `date` keeps the events running at some moment of that (UTC) day;
 * `event_date=current_and_coming` those not yet ended, by the clock.
 */
export async function listEvents(deps: Deps, caller: Caller, query: ListEventsQuery): Promise<ListResult<Event>> {
  if (query.ids) return listByIds(query.ids, query, (id) => getEvent(deps, caller, id));
  const now = nowIso(deps);
  let runningFrom = query.event_date === 'current_and_coming' ? now : undefined;
  let runningBefore: string | undefined;
  if (query.date) {
    const dayStart = new Date(`${query.date}T00:00:00.000Z`);
    const dayFrom = dayStart.toISOString();
    runningFrom = runningFrom === undefined || dayFrom > runningFrom ? dayFrom : runningFrom;
    // Stored times are compared as text: the day after 9999-12-31 would be written `+010000-…` and sort before
    // every time, so that day's bound is its own 24:00 (after each of its times as text).
    runningBefore = query.date === '9999-12-31' ? '9999-12-31T24:00:00.000Z' : new Date(dayStart.getTime() + DAY_MS).toISOString();
  }
  const listed = await deps.store.events.list(
    { owner: query.owner, page_id: query.page_id, slug: query.slug, runningFrom, runningBefore },
    viewerOf(caller),
    query,
  );
  return listResult(listed.rows.map(toEventRecord), listed);
}

async function toAttendanceRecords(store: Store, caller: Caller, rows: WithUser<AttendanceRow>[], now: Date): Promise<Attendance[]> {
  const users = await loadEmbeds(store, caller, rows.map((r) => r.user_id), [], now, { users: rows.map((r) => r.user) });
  return rows.map((r) => ({
    event_id: r.event_id,
    user_id: r.user_id,
    user: users.user(r.user_id),
    answer: r.answer as Attendance['answer'],
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

/**
 * Answers an event. A yes takes a place (409 `event_full` when none is left, decided by one conditional
 * update so concurrent answers never overfill it) and follows the event; no or maybe after yes frees the
 * place. An ended event takes no answers (409 `event_ended`). A new yes notifies the creator, while they may know of
 * the event. In a private or secret page only its members and administrators answer (403): an answer opens the
 * event's conversation. One who left the page may answer no to take their answer back, a secret page's event too
 * (`eventToAnswer`); the answer then carries the event only if the caller may read it (null for the leaver of a
 * secret page: it stays hidden).
 */
export async function answerEvent(deps: Deps, caller: Caller, eventId: string, input: AttendanceInput): Promise<AttendanceResult> {
  requireActingFor(caller, input.user_id);
  return deps.store.transaction(async (tx) => {
    const { user, viewer } = await actingUser(tx, caller, input.user_id);
    const event = await eventToAnswer(tx, viewer, eventId, input.answer);
    const closed = await eventPageClosedTo(tx, viewer, event);
    // One who left the page may still take back an answer given in it (a yes holds a place); nothing more.
    if (closed && !(input.answer === 'no' && (await tx.attendances.find(event.id, user.id))))
      throw forbidden(`Only members of this ${closed.privacy} page may answer its events: ask to join it (or be invited) first`);
    const now = nowIso(deps);
    if (event.end_date < now) throw new AppError(409, ErrorCode.eventEnded, 'This event has ended: it takes no more answers');
    // Two answers of one user racing (from two processes) would both read "no previous answer"; the event's row held
    // for writing (its count of attendees moves) makes them take turns.
    await tx.events.hold(event.id, 'write');
    const previous = await tx.attendances.find(event.id, user.id);
    const wasYes = previous?.answer === 'yes';
    const isYes = input.answer === 'yes';
    if (isYes && !wasYes && !(await tx.events.takePlace(event.id, now)))
      throw new AppError(409, ErrorCode.eventFull, 'This event is full: no place is left');
    if (wasYes && !isYes) await tx.events.freePlace(event.id, now);
    let row: AttendanceRow;
    if (previous) {
      row = { ...previous, answer: input.answer, updated_at: previous.answer === input.answer ? previous.updated_at : now };
      if (previous.answer !== input.answer) await tx.attendances.setAnswer(previous.id, input.answer, now);
    } else {
      row = { id: newId(), event_id: event.id, user_id: user.id, answer: input.answer, created_at: now, updated_at: now };
      await tx.attendances.insert(row);
    }
    // The creator is told while they may know of the event: once out of its secret page, a yes would name to them
    // one who is in it.
    if (isYes && !wasYes && (await knownTo(tx, event.user_id, event.id)))
      await notifyUsers(
        tx,
        now,
        {
          type: 'event_attendance',
          action: 'answered',
          subject: userRef(user),
          target: eventRef(event),
          finalTarget: eventRef(event),
          link: { type: 'Event', id: event.id, slug: event.slug },
        },
        [event.user_id],
        [user.id, caller.user.id],
      );
    const [record] = await toAttendanceRecords(tx, caller, [{ ...row, user }], new Date(now));
    const shown = await tx.events.getKnown(event.id, viewerOf(caller));
    return { ...record!, event: shown ? toEventRecord(shown) : null };
  });
}

/** Whether the user may know of the event (`getKnown`, as they would read it). */
async function knownTo(store: Store, userId: string, eventId: string): Promise<boolean> {
  const viewer = await viewerById(store, userId);
  return viewer !== undefined && (await store.events.getKnown(eventId, viewer)) !== undefined;
}

/**
 * The event a user answers: one they may know of; or, to take their answer back (`no`), one they answered and may
 * no longer know of (they left its secret page: their yes would hold a place and count for ever). Anyone else, and
 * any other answer, is refused as a read is (404).
 */
async function eventToAnswer(store: Store, viewer: Viewer, eventId: string, answer: AttendanceInput['answer']): Promise<EventRow> {
  const known = await store.events.getKnown(eventId, viewer);
  if (known) return known;
  // Their answer first, the event only then: an event that exists and one that does not cost the same statements,
  // so the time a refusal takes does not tell one who never answered that a hidden event has this id.
  const hidden = answer === 'no' && (await store.attendances.find(eventId, viewer.id)) ? await store.events.getById(eventId) : undefined;
  if (hidden) return hidden;
  throw notFound('Event');
}

export async function listAttendees(
  deps: Deps,
  caller: Caller,
  eventId: string,
  query: ListAttendeesQuery,
): Promise<ListResult<Attendance>> {
  const event = await eventKnownTo(deps.store, viewerOf(caller), eventId);
  const listed = await deps.store.attendances.list(event.id, query.answer, query);
  return listResult(await toAttendanceRecords(deps.store, caller, listed.rows, deps.clock()), listed);
}
