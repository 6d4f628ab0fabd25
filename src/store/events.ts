import { sql, type Kysely, type Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import type { Viewer } from './pages.js';
import type { Dialect } from './store.js';
import { secretPageOf } from './follows.js';
import { slugsStartingWith } from './slugs.js';
import type { Database, EventAttendanceTable, EventTable } from './schema.js';
import { keptParts, partsSelection } from './records-json.js';
import { counterKey, countOf, narrowed, type Listed, type Selection, type Walk, Pager, WalksKept } from './paging.js';

/** An event in a secret page says so (`secret_page`): the store's own, neither written nor read by the domain. */
export type EventRow = Omit<Selectable<EventTable>, 'secret_page'>;
export type AttendanceRow = Selectable<EventAttendanceTable>;

export interface EventFilter {
  owner?: string;
  page_id?: string;
  slug?: string;
  /** Events running at some moment of [from, before): they start before `before` and end at or after `from`. */
  runningFrom?: string;
  runningBefore?: string;
}

const selectEvents: Selection = (q) => q.selectAll('events');
/** An event's record as JSON text, written by SQLite and kept by id (`KEPT_RECORDS` in `records-json.ts`). */
const eventsAsJson = partsSelection(keptParts('E'));
const selectAttendances: Selection = (q) => q.selectAll('event_attendances');

export function eventsRepo(db: Kysely<Database>, dialect: Dialect, pager: Pager = new Pager()) {
  /** `ordered`: for a walk in the list's order (not a count, which walks whichever index fits it best). */
  const matching = (filter: EventFilter, longestMs: number, ordered: boolean) => {
    let q = db.selectFrom('events');
    if (filter.owner !== undefined) q = q.where('events.user_id', '=', filter.owner);
    if (filter.page_id !== undefined) q = q.where('events.page_id', '=', filter.page_id);
    if (filter.slug !== undefined) q = q.where('events.slug', '=', filter.slug);
    if (filter.runningFrom !== undefined) {
      // An event still running at `runningFrom` started at most the longest event's length before it: the
      // walk starts there instead of at the first event ever.
      // For an ordered walk on SQLite, said to be `likely` true: the walk then starts at the later of this
      // bound and the page's start (the sort key it resumes from), which SQLite would otherwise leave to a
      // test entry by entry from this one (a deep page of a dated list cost every entry before it).
      const earliest = new Date(Date.parse(filter.runningFrom) - longestMs).toISOString();
      q = q
        .where(ordered && dialect === 'sqlite' ? sql<boolean>`likely(${sql.ref('events.start_date')} >= ${earliest})` : sql<boolean>`${sql.ref('events.start_date')} >= ${earliest}`)
        .where('events.end_date', '>=', filter.runningFrom);
    }
    if (filter.runningBefore !== undefined) q = q.where('events.start_date', '<', filter.runningBefore);
    return q;
  };
  const keys = ['events.start_date', 'events.id'];
  /**
   * An event in a secret page is as hidden as the page: a Member sees the others and those of the secret
   * pages they see, in one walk (the event's own copy of its page's secrecy and the page are on the index
   * that orders the list; the set of seen pages is looked in only for an event of a secret page).
   */
  const walks = (filter: EventFilter, viewer: Viewer, secretSeen: string[], longestMs: number, ordered = true): Walk[] => {
    if (viewer.isAdmin) return [{ query: matching(filter, longestMs, ordered), keys }];
    const query = matching(filter, longestMs, ordered).where((eb) =>
      secretSeen.length
        ? eb.or([eb('events.secret_page', '=', 0), eb('events.page_id', 'in', secretSeen)])
        : eb('events.secret_page', '=', 0),
    );
    return [{ query, keys }];
  };
  /**
   * The walks of a list, built once per filter, caller's view and window (a query is only a description:
   * the same one serves every request that asks the same).
   */
  const built = new WalksKept<Walk[]>();
  /** What a list's walks depend on: its filter, its window, and what the caller sees. */
  const listName = (filter: EventFilter, viewer: Viewer, secretSeen: string[], longestMs: number) =>
    JSON.stringify([filter.owner, filter.page_id, filter.slug, filter.runningFrom, filter.runningBefore, longestMs, viewer.isAdmin || secretSeen]);
  const walksOf = (filter: EventFilter, viewer: Viewer, secretSeen: string[], longestMs: number, ordered = true): Walk[] => {
    const name = `${listName(filter, viewer, secretSeen, longestMs)}\u0000${ordered}`;
    return built.get(name, () => walks(filter, viewer, secretSeen, longestMs, ordered));
  };
  const key = (f: EventFilter, secret?: string) => counterKey('events', [f.owner, f.page_id, secret]);
  const total = async (filter: EventFilter, viewer: Viewer, secretSeen: string[], longestMs: number): Promise<number> => {
    // Dated lists count their window (events running in a span of time, by index range), a slug its one
    // event; the others, kept counts. A window's count is remembered while no event is written (its bounds
    // are the events' own end dates, see `windowStart`, so the same window is asked again and again).
    if (filter.runningFrom !== undefined || filter.runningBefore !== undefined || filter.slug !== undefined) {
      return pager.memo(`events.window\u0000${listName(filter, viewer, secretSeen, longestMs)}`, ['events'], async () => {
        const counts = await Promise.all(walksOf(filter, viewer, secretSeen, longestMs, false).map((w) => countOf(w.query)));
        return counts.reduce((a, b) => a + b, 0);
      });
    }
    if (viewer.isAdmin) return pager.count(db, key(filter));
    const seen = secretSeen.flatMap((page) => {
      const f = narrowed(filter, { page_id: page });
      return f ? [key(f)] : [];
    });
    const [all, secret, ...visible] = await pager.counts(db, [key(filter), key(filter, '1'), ...seen]);
    return all! - secret! + visible.reduce((a, b) => a + b, 0);
  };
  /**
   * Where a dated list's window starts, as the events' own end dates put it: the events still running at
   * `from` (ending at or after it) are exactly those ending at or after the first end date at or after it
   * (found by the index on end dates), so a dated list asks with that instead of the clock, and its walk and
   * its count are the same list, positions and all, from one request to the next until the clock passes an
   * event's end or an event is written. (The start bound, `from` less the longest event, moves later with
   * it: every event ending at or after that end started at or after that bound.) When no event ends at or
   * after `from`, the first such `from` asked stands for the later ones (the list is empty either way).
   * What was found is remembered as spans [from, end] in which no event ends, while no event is written, so
   * a clock that moves on within one costs no statement.
   */
  const windowStart = async (from: string): Promise<string> => {
    const spans = await pager.memo('events.ends', ['events'], async () => [] as { from: string; end: string | undefined }[]);
    for (const span of spans) if (span.from <= from && (span.end === undefined || from <= span.end)) return span.end ?? span.from;
    const row = await db
      .selectFrom('events')
      .select((eb) => eb.fn.min('events.end_date').as('end'))
      .where('events.end_date', '>=', from)
      .executeTakeFirst();
    const end = row?.end ?? undefined;
    // An end date this store did not write (not a date): the clock's own bound, as asked.
    if (end !== undefined && Number.isNaN(Date.parse(end))) return from;
    if (spans.length >= 64) spans.length = 0;
    spans.push({ from, end });
    return end ?? from;
  };
  return {
    async insert(row: EventRow): Promise<void> {
      await db.insertInto('events').values({ ...row, secret_page: secretPageOf(row.page_id) }).execute();
    },
    getById(id: string): Promise<EventRow | undefined> {
      return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /**
     * Soonest first. `secretSeen`: the secret pages a Member sees (pages.secretSeenBy). `json`: the records may
     * come as JSON text (`Listed.json`, read straight from SQLite) instead of rows.
     */
    async list(asked: EventFilter, viewer: Viewer, secretSeen: string[], page: Pagination, options: { json?: boolean } = {}): Promise<Listed<EventRow>> {
      let filter = asked;
      // (PostgreSQL remembers nothing between requests: there it would be one statement more for nothing.)
      if (asked.runningFrom !== undefined && dialect === 'sqlite') filter = { ...asked, runningFrom: await windowStart(asked.runningFrom) };
      const longestMs = filter.runningFrom === undefined ? 0 : await pager.count(db, 'events.longest_ms');
      const json = options.json ? eventsAsJson : undefined;
      return pager.list<EventRow>(db, walksOf(filter, viewer, secretSeen, longestMs), selectEvents, page, total(filter, viewer, secretSeen, longestMs), false, json);
    },
    slugsStartingWith: (base: string): Promise<string[]> => slugsStartingWith(db, 'events', base),
    /**
     * Locks the event until the transaction ends, so that one user's answers to it are settled one after the
     * other (an answer reads the previous one, then takes or frees a place). PostgreSQL only: SQLite's
     * writer holds the only write lock already.
     */
    async lockForAnswers(id: string): Promise<void> {
      if (dialect === 'postgres') await db.selectFrom('events').select('id').where('id', '=', id).forUpdate().execute();
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
        .set({ attendees_count: sql`case when attendees_count > 0 then attendees_count - 1 else 0 end`, updated_at: now })
        .where('id', '=', id)
        .execute();
    },
  };
}
export type EventsRepo = ReturnType<typeof eventsRepo>;

export function attendancesRepo(db: Kysely<Database>, pager: Pager = new Pager()) {
  const filtered = (eventId: string, answer?: string) => {
    let q = db.selectFrom('event_attendances').where('event_attendances.event_id', '=', eventId);
    if (answer !== undefined) q = q.where('event_attendances.answer', '=', answer);
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
    /** In user order. */
    async list(eventId: string, answer: string | undefined, page: Pagination): Promise<Listed<AttendanceRow>> {
      const total = pager.count(db, counterKey('event_attendances', [eventId, answer]));
      return pager.list<AttendanceRow>(db, [{ query: filtered(eventId, answer), keys: ['event_attendances.user_id'] }], selectAttendances, page, total);
    },
  };
}
export type AttendancesRepo = ReturnType<typeof attendancesRepo>;
