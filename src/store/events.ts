import { sql, type Kysely, type Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import { pageVisibleTo, type Viewer } from './pages.js';
import type { Database, EventAttendanceTable, EventTable } from './schema.js';
import { countOf, offsetOf } from './paging.js';

export type EventRow = Selectable<EventTable>;
export type AttendanceRow = Selectable<EventAttendanceTable>;

export interface EventFilter {
  owner?: string;
  page_id?: string;
  slug?: string;
  /** Events running at some moment of [from, before): they start before `before` and end at or after `from`. */
  runningFrom?: string;
  runningBefore?: string;
}

export function eventsRepo(db: Kysely<Database>) {
  const filtered = (filter: EventFilter, viewer: Viewer) => {
    let q = db.selectFrom('events');
    if (filter.owner !== undefined) q = q.where('events.user_id', '=', filter.owner);
    if (filter.page_id !== undefined) q = q.where('events.page_id', '=', filter.page_id);
    if (filter.slug !== undefined) q = q.where('events.slug', '=', filter.slug);
    if (filter.runningFrom !== undefined) q = q.where('events.end_date', '>=', filter.runningFrom);
    if (filter.runningBefore !== undefined) q = q.where('events.start_date', '<', filter.runningBefore);
    // An event in a secret page is as hidden as the page.
    if (!viewer.isAdmin)
      q = q.where((eb) =>
        eb.or([
          eb('events.page_id', 'is', null),
          eb.exists(
            eb
              .selectFrom('pages')
              .select('pages.id')
              .whereRef('pages.id', '=', 'events.page_id')
              .where((inner) => pageVisibleTo(inner, viewer)),
          ),
        ]),
      );
    return q;
  };
  return {
    async insert(row: EventRow): Promise<void> {
      await db.insertInto('events').values(row).execute();
    },
    getById(id: string): Promise<EventRow | undefined> {
      return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async list(filter: EventFilter, viewer: Viewer, page: Pagination): Promise<{ rows: EventRow[]; total: number }> {
      const [rows, total] = await Promise.all([
        filtered(filter, viewer)
          .selectAll('events')
          .orderBy('events.start_date')
          .orderBy('events.id')
          .limit(page.per_page)
          .offset(offsetOf(page))
          .execute(),
        countOf(filtered(filter, viewer)),
      ]);
      return { rows, total };
    },
    async slugsStartingWith(base: string): Promise<string[]> {
      const rows = await db
        .selectFrom('events')
        .select('slug')
        .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
        .execute();
      return rows.map((r) => r.slug);
    },
    /**
     * Takes a place: one more attendee unless the event is full, in one conditional update, so that
     * concurrent answers never take more places than there are. False when it was full.
     */
    async takePlace(id: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('events')
        .set({ attendees_count: sql`attendees_count + 1`, updated_at: now })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('places_limit', 'is', null), eb('attendees_count', '<', eb.ref('places_limit'))]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async freePlace(id: string, now: string): Promise<void> {
      await db
        .updateTable('events')
        .set({ attendees_count: sql`max(attendees_count - 1, 0)`, updated_at: now })
        .where('id', '=', id)
        .execute();
    },
  };
}
export type EventsRepo = ReturnType<typeof eventsRepo>;

export function attendancesRepo(db: Kysely<Database>) {
  const filtered = (eventId: string, answer?: string) => {
    let q = db.selectFrom('event_attendances').where('event_id', '=', eventId);
    if (answer !== undefined) q = q.where('answer', '=', answer);
    return q;
  };
  return {
    find(eventId: string, userId: string): Promise<AttendanceRow | undefined> {
      return db
        .selectFrom('event_attendances')
        .selectAll()
        .where('event_id', '=', eventId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
    },
    async insert(row: AttendanceRow): Promise<void> {
      await db.insertInto('event_attendances').values(row).execute();
    },
    async setAnswer(id: string, answer: string, now: string): Promise<void> {
      await db.updateTable('event_attendances').set({ answer, updated_at: now }).where('id', '=', id).execute();
    },
    async list(eventId: string, answer: string | undefined, page: Pagination) {
      const [rows, total] = await Promise.all([
        filtered(eventId, answer).selectAll().orderBy('user_id').limit(page.per_page).offset(offsetOf(page)).execute(),
        countOf(filtered(eventId, answer)),
      ]);
      return { rows, total };
    },
  };
}
export type AttendancesRepo = ReturnType<typeof attendancesRepo>;
