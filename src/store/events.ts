import { sql, type Expression, type Kysely, type Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import { notSecretOrSeen, secretPageIdsSeen, visibleTotal, type Viewer } from './visibility.js';
import type { Dialect } from './dialect.js';
import { secretPageOf } from './follows.js';
import type { Database } from './schema.js';
import { counted, counterKey, kept, keptBetween, keptEach, listPage, type Listed } from './paging.js';
import { byId, holder, inserter, slugsStartingWith } from './rows.js';
import { withUser, type WithUser } from './users.js';

/** An event in a secret page says so (`secret_page`): the store's own, neither written nor read by the domain. */
export type EventRow = Omit<Selectable<Database['events']>, 'secret_page'>;
export type AttendanceRow = Selectable<Database['event_attendances']>;

/** `runningFrom`, `runningBefore`: events running at some moment of [from, before): start < before, end >= from. */
export type EventFilter = Partial<Record<'owner' | 'page_id' | 'slug' | 'runningFrom' | 'runningBefore', string>>;

const DAY_MS = 24 * 60 * 60 * 1000;

export function eventsRepo(db: Kysely<Database>, dialect: Dialect) {
  /**
   * The earliest start of an event running at `from`: less the longest event's length and a second (a bound only),
   * never before 0001-01-01: an event thousands of years long would otherwise carry the bound out of the calendar
   * (NULL on SQLite, so that no event matched; "timestamp out of range" on PostgreSQL, a 500 for every dated list).
   */
  const earliestFor = (from: string) =>
    dialect === 'postgres'
      ? sql<string>`to_char((${from}::timestamptz - least(coalesce((select n from list_counts where key = 'events.longest_ms'), 0) + 1000, floor(extract(epoch from (${from}::timestamptz - timestamptz '0001-01-01T00:00:00Z')) * 1000))::float8 * interval '1 millisecond') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
      : sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', max(julianday(${from}) - (coalesce((select n from list_counts where key = 'events.longest_ms'), 0) + 1000) / 86400000.0, julianday('0001-01-01')))`;
  /** `ordered`: a walk in the list's order, not a count (which walks whichever index fits best). */
  const matching = (filter: EventFilter, ordered: boolean) => {
    let q = db.selectFrom('events');
    if (filter.owner !== undefined) q = q.where('events.user_id', '=', filter.owner);
    if (filter.page_id !== undefined) q = q.where('events.page_id', '=', filter.page_id);
    if (filter.slug !== undefined) q = q.where('events.slug', '=', filter.slug);
    if (filter.runningFrom !== undefined) {
      // The walk starts at the earliest possible start, not the first event ever. `likely` on SQLite's ordered walk,
      // so it starts at the page's own key when later, rather than testing each entry from this bound.
      const earliest = earliestFor(filter.runningFrom);
      q = q
        .where(ordered && dialect === 'sqlite' ? sql<boolean>`likely(${sql.ref('events.start_date')} >= ${earliest})` : sql<boolean>`${sql.ref('events.start_date')} >= ${earliest}`)
        .where('events.end_date', '>=', filter.runningFrom);
    }
    if (filter.runningBefore !== undefined) q = q.where('events.start_date', '<', filter.runningBefore);
    return q;
  };
  /** A Member sees events not in secret pages and those of the secret pages they see, in one walk. */
  const visible = (filter: EventFilter, viewer: Viewer, ordered = true) =>
    viewer.isAdmin
      ? matching(filter, ordered)
      : matching(filter, ordered).where((eb) => notSecretOrSeen(eb, eb('events.secret_page', '=', 0), 'events.page_id', secretPageIdsSeen(viewer.id, filter.page_id)));
  /**
   * The total of events not yet ended (`current_and_coming`): those ending today counted, then kept counts of the days
   * left this month and of the later months: a few dozen keys, not a count that grows with the community.
   */
  const current = (now: string, viewer: Viewer): Expression<number> => {
    const today = now.slice(0, 10);
    const tomorrow = new Date(Date.parse(`${today}T00:00:00.000Z`) + DAY_MS).toISOString();
    const nextMonth = new Date(Date.UTC(Number(now.slice(0, 4)), Number(now.slice(5, 7)), 1)).toISOString().slice(0, 10);
    const endingToday = db.selectFrom('events').where('events.end_date', '>=', now).where('events.end_date', '<', tomorrow);
    // The day keys after today's before next month's first, then the month keys after this one's.
    const later = (flag?: string) =>
      sql<number>`(${keptBetween(counterKey('events_end', [flag, today]), counterKey('events_end', [flag, nextMonth]))} + ${keptBetween(
        counterKey('events_end_month', [flag, now.slice(0, 7)]),
        `${counterKey('events_end_month', [flag])}}`,
      )})`;
    const all = sql<number>`(${later()} + ${counted(endingToday)})`;
    if (viewer.isAdmin) return all;
    const ofSecretPages = sql<number>`(${later('1')} + ${counted(endingToday.where('events.secret_page', '=', 1))})`;
    const ofPagesSeen = matching({ runningFrom: now }, false)
      .where('events.page_id', 'in', secretPageIdsSeen(viewer.id))
      .where('events.secret_page', '=', 1);
    return visibleTotal(all, ofSecretPages, counted(ofPagesSeen));
  };
  const key = (f: EventFilter, secret?: string) => counterKey('events', [f.owner, f.page_id, secret]);
  const total = (filter: EventFilter, viewer: Viewer): Expression<number> => {
    const { owner, page_id, slug, runningFrom, runningBefore } = filter;
    if (runningFrom !== undefined && runningBefore === undefined && owner === undefined && page_id === undefined && slug === undefined)
      return current(runningFrom, viewer);
    // Other dated lists count their window on an index, a slug its one event.
    if (runningFrom !== undefined || runningBefore !== undefined || slug !== undefined)
      return counted(visible(filter, viewer, false));
    if (viewer.isAdmin) return kept([key(filter)]);
    const seen = keptEach((page) => key({ ...filter, page_id: page }), secretPageIdsSeen(viewer.id, filter.page_id));
    return visibleTotal(kept([key(filter)]), kept([key(filter, '1')]), seen);
  };
  return {
    async insert(row: EventRow): Promise<void> {
      await db.insertInto('events').values({ ...row, secret_page: secretPageOf(row.page_id) }).execute();
    },
    getById: byId(db, 'events'),
    /** The event if the viewer may know of it, by the list's own rule. */
    getKnown(id: string, viewer: Viewer): Promise<EventRow | undefined> {
      return visible({}, viewer, false).selectAll('events').where('events.id', '=', id).executeTakeFirst() as Promise<EventRow | undefined>;
    },
    /** Soonest first. */
    async list(filter: EventFilter, viewer: Viewer, page: Pagination): Promise<Listed<EventRow>> {
      const walk = { query: visible(filter, viewer), keys: ['events.start_date', 'events.id'] };
      return listPage<EventRow>(db, [walk], (q) => q.selectAll('events'), page, total(filter, viewer));
    },
    slugsStartingWith: slugsStartingWith(db, 'events'),
    /** Holds the event until the transaction ends (`Hold`): a user's answers settle one after the other. */
    hold: holder(db, 'events'),
    /** Takes a place unless full (false), in one conditional update: concurrent answers never overbook. */
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
        .set({ attendees_count: sql`case when attendees_count > 0 then attendees_count - 1 else 0 end`, updated_at: now })
        .where('id', '=', id)
        .execute();
    },
  };
}

export function attendancesRepo(db: Kysely<Database>) {
  return {
    find(eventId: string, userId: string): Promise<AttendanceRow | undefined> {
      return db
        .selectFrom('event_attendances')
        .selectAll()
        .where('event_id', '=', eventId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
    },
    insert: inserter(db, 'event_attendances'),
    async setAnswer(id: string, answer: string, now: string): Promise<void> {
      await db.updateTable('event_attendances').set({ answer, updated_at: now }).where('id', '=', id).execute();
    },
    /** In user order. */
    async list(eventId: string, answer: string | undefined, page: Pagination): Promise<Listed<WithUser<AttendanceRow>>> {
      const total = kept([counterKey('event_attendances', [eventId, answer])]);
      let query = db.selectFrom('event_attendances').where('event_attendances.event_id', '=', eventId);
      if (answer !== undefined) query = query.where('event_attendances.answer', '=', answer);
      return listPage<WithUser<AttendanceRow>>(db, [{ query, keys: ['event_attendances.user_id'] }], (q) => q.selectAll('event_attendances'), page, total, { embeds: withUser });
    },
  };
}
