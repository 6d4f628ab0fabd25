import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import { FOLLOWABLE_TYPES } from '../shared/schemas/follows.js';
import { dialectOf, fixed } from './dialect.js';
import type { Dialect } from './store.js';
import type { Pagination } from '../shared/schemas/common.js';
import type { Database, NotificationContentTable, NotificationJobTable, NotificationTable } from './schema.js';
import { type Selection, type Walk, Pager, WalksKept } from './paging.js';
import { prepared } from './prepared.js';

/** A user's notification's own columns, but its number (`seq`, the live stream's). */
export type NotificationOwn = Omit<Selectable<NotificationTable>, 'seq'>;
/** What every recipient of one notification is told. */
export type NotificationContentRow = Selectable<NotificationContentTable>;
/** A user's notification, with what it says. */
export type NotificationRow = Selectable<NotificationTable> & Omit<NotificationContentRow, 'id' | 'created_at'>;
export type NotificationJobRow = Selectable<NotificationJobTable>;

/**
 * A notification of a user's list: its own fields as the record's JSON already (`head`: `{"id":…,"user_id":…,
 * "seen":…,"created_at":…,"updated_at":…`, the record's first five fields, unclosed), written by the database
 * from the walk's index (migration 0018), and what the rest is read by: its content.
 */
export interface NotificationListed {
  id: string;
  content_id: string;
  head: string;
}

/** Rows per insert statement: well under SQLite's limit of bound parameters. */
const ROWS_PER_INSERT = 500;

/** What a notification says, of its content: every column but the content's own id and date. */
export type Content = Omit<NotificationContentRow, 'id' | 'created_at'>;
/**
 * A page of a user's notifications: each row's own fields and, at the same place in `contents`, what it says.
 * A content shared by several rows, or kept from an earlier page while no content is written, is the same object.
 */
export interface NotificationsPage {
  /** Whose notifications they are. */
  userId: string;
  rows: NotificationListed[];
  contents: Content[];
  next?: string[];
}
const CONTENT_COLUMNS = [
  'notification_type',
  'action_name',
  'subject_type',
  'subject_id',
  'subject_slug',
  'subject_name',
  'target_type',
  'target_id',
  'target_slug',
  'target_name',
  'final_target_type',
  'final_target_id',
  'final_target_slug',
  'final_target_name',
  'link_type',
  'link_id',
  'link_slug',
  'picture_url',
  'comment_info',
] as const satisfies readonly (keyof Content)[];

const contentOf = (r: Content): Content => ({
  notification_type: r.notification_type,
  action_name: r.action_name,
  subject_type: r.subject_type,
  subject_id: r.subject_id,
  subject_slug: r.subject_slug,
  subject_name: r.subject_name,
  target_type: r.target_type,
  target_id: r.target_id,
  target_slug: r.target_slug,
  target_name: r.target_name,
  final_target_type: r.final_target_type,
  final_target_id: r.final_target_id,
  final_target_slug: r.final_target_slug,
  final_target_name: r.final_target_name,
  link_type: r.link_type,
  link_id: r.link_id,
  link_slug: r.link_slug,
  picture_url: r.picture_url,
  comment_info: r.comment_info,
});

/** Contents remembered at most (a few hundred bytes each). */
const MAX_CONTENTS = 20_000;
/** The contents read while `notification_contents` stands still; `read`: whether a list read any yet. */
interface KnownContents {
  byId: Map<string, Content>;
  read: boolean;
}

type CounterChange = { user_id: string; total: number; unseen: number; seq: number };
/** Counters moved by the rows inserted (`count` below): added to those that exist, each answering its `seq` after. */
const counting = (db: Kysely<Database>, rows: CounterChange | CounterChange[]) =>
  db
    .insertInto('notification_counters')
    .values(rows)
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet((eb) => ({
        total: eb('notification_counters.total', '+', eb.ref('excluded.total')),
        unseen: eb('notification_counters.unseen', '+', eb.ref('excluded.unseen')),
        seq: eb('notification_counters.seq', '+', eb.ref('excluded.seq')),
      })),
    )
    .returning(['user_id', 'seq']);
/** A notification for one user unless they have it (a batch run twice notifies nobody twice). */
const notifying = (db: Kysely<Database>, rows: Insertable<NotificationTable> | Insertable<NotificationTable>[]) =>
  db
    .insertInto('notifications')
    .values(rows)
    .onConflict((oc) => oc.columns(['content_id', 'user_id']).doNothing())
    .returning('user_id');
// What a notification of one user writes (most: a follow, an access request, an invite), built once (`prepared.ts`).
const countOne = prepared<CounterChange, { user_id: string; seq: number }>((db: Kysely<Database>, p) =>
  counting(db, { user_id: p.user_id, total: p.total, unseen: p.unseen, seq: p.seq }),
);
const notifyOne = prepared<Selectable<NotificationTable>, { user_id: string }>((db: Kysely<Database>, p) =>
  notifying(db, { id: p.id, user_id: p.user_id, content_id: p.content_id, seen: p.seen, created_at: p.created_at, updated_at: p.updated_at, seq: p.seq }),
);
const insertContent = prepared<NotificationContentRow>((db: Kysely<Database>, p) =>
  db.insertInto('notification_contents').values({
    id: p.id,
    notification_type: p.notification_type,
    action_name: p.action_name,
    subject_type: p.subject_type,
    subject_id: p.subject_id,
    subject_slug: p.subject_slug,
    subject_name: p.subject_name,
    target_type: p.target_type,
    target_id: p.target_id,
    target_slug: p.target_slug,
    target_name: p.target_name,
    final_target_type: p.final_target_type,
    final_target_id: p.final_target_id,
    final_target_slug: p.final_target_slug,
    final_target_name: p.final_target_name,
    link_type: p.link_type,
    link_id: p.link_id,
    link_slug: p.link_slug,
    picture_url: p.picture_url,
    comment_info: p.comment_info,
    created_at: p.created_at,
  }),
);

export function notificationsRepo(db: Kysely<Database>, pager: Pager = new Pager()) {
  const withContent = (
    query = db.selectFrom('notifications as n').innerJoin('notification_contents as c', 'c.id', 'n.content_id'),
  ) => query.selectAll('n').select(CONTENT_COLUMNS.map((column) => `c.${column}` as const));
  // A user's walk kept (`WalksKept`): the same query, compiled once, for every page of their notifications.
  const walksKept = new WalksKept<Walk[]>();
  /**
   * A notification's own fields as JSON (`NotificationListed.head`), each value quoted by the database as
   * `JSON.stringify` quotes it (SQLite's `json_quote`, PostgreSQL's `to_json`): 25 rows' five fields were 25
   * objects and 100 `JSON.stringify` calls a page.
   */
  const postgres = dialectOf(db) === 'postgres';
  const quoted = (column: string) =>
    postgres ? sql`to_json(${sql.ref(`n.${column}`)})::text` : sql`json_quote(${sql.ref(`n.${column}`)})`;
  const head = sql<string>`'{"id":' || ${quoted('id')} || ',"user_id":' || ${quoted('user_id')} || ',"seen":' ||
    case when n.seen = 1 then 'true' else 'false' end || ',"created_at":' || ${quoted('created_at')} ||
    ',"updated_at":' || ${quoted('updated_at')}`;
  const listed: Selection = (query) => query.select(['n.id', 'n.content_id', head.as('head')]);
  const withContents: Selection = (query) =>
    listed(query.innerJoin('notification_contents as c', 'c.id', 'n.content_id')).select(
      CONTENT_COLUMNS.map((column) => `c.${column}` as const),
    );
  /**
   * The contents known, while no content is written (by anyone: the table's version): a notification's
   * content is shared by all its recipients and read again with every page that shows it. Where the store
   * keeps no versions (PostgreSQL, a transaction) each call answers a new, empty set.
   */
  const knownContents = (): Promise<KnownContents> =>
    pager.memo('notification_contents', ['notification_contents'], async () => ({ byId: new Map(), read: false }));
  const remember = (known: KnownContents, id: string, content: Content) => {
    if (known.byId.size >= MAX_CONTENTS) known.byId.clear();
    known.byId.set(id, content);
  };
  /**
   * Adds to the counters of each user, one statement for the whole batch, and answers each user's counter
   * after it (`seq`: the number their next notification takes). Users are taken in id order, so two
   * transactions counting for the same users lock their counter rows in the same order (no deadlock).
   */
  const count = async (changes: CounterChange[]) => {
    if (changes.length === 0) return new Map<string, number>();
    const rows =
      changes.length === 1
        ? await countOne.execute(db, changes[0]!)
        : await counting(db, [...changes].sort((a, b) => (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0))).execute();
    return new Map(rows.map((r) => [r.user_id, Number(r.seq)]));
  };
  return {
    async insertContent(row: NotificationContentRow): Promise<void> {
      await insertContent.execute(db, row);
    },
    /**
     * Gives each user the notification (ids from `newId`). Each user's counter is moved first: it numbers the
     * notification (`seq`) and stays locked by this transaction until it commits, so a user's notifications
     * become visible in the order of their numbers, whichever process writes them. A user who already has
     * this one is skipped (a batch run twice notifies nobody twice) and their counts are given back (the
     * number is not: numbers only need to grow). Answers who got one.
     */
    async insertFor(contentId: string, recipients: { userId: string; id: string }[], now: string): Promise<string[]> {
      const notified: string[] = [];
      const unique = [...new Map(recipients.map((r) => [r.userId, r])).values()];
      for (let i = 0; i < unique.length; i += ROWS_PER_INSERT) {
        const chunk = unique.slice(i, i + ROWS_PER_INSERT);
        const seqOf = await count(chunk.map((r) => ({ user_id: r.userId, total: 1, unseen: 1, seq: 1 })));
        const rows: Selectable<NotificationTable>[] = chunk.map((r) => ({
          id: r.id,
          user_id: r.userId,
          content_id: contentId,
          seen: 0,
          created_at: now,
          updated_at: now,
          seq: seqOf.get(r.userId)!,
        }));
        const inserted = rows.length === 1 ? await notifyOne.execute(db, rows[0]!) : await notifying(db, rows).execute();
        const got = new Set(inserted.map((r) => r.user_id));
        notified.push(...got);
        if (got.size < chunk.length)
          await count(chunk.filter((r) => !got.has(r.userId)).map((r) => ({ user_id: r.userId, total: -1, unseen: -1, seq: 0 })));
      }
      return notified;
    },
    /**
     * Newest first: one walk of the user's notifications, their own fields written as JSON from its index alone
     * (migration 0018, `head`), each with its content apart (`NotificationsPage`), never joined into one object a row.
     * Their contents come from those known (see `knownContents`), the others in one statement by id; the first
     * list after a content was written (and every list where nothing is remembered) joins them in the walk
     * instead, as it used to, and what it read is remembered.
     */
    async list(userId: string, unseenOnly: boolean, page: Pagination): Promise<NotificationsPage> {
      const walks = walksKept.get(`${userId}\u0000${unseenOnly}`, () => {
        let q = db.selectFrom('notifications as n').where('n.user_id', '=', userId);
        if (unseenOnly) q = q.where('n.seen', '=', sql.lit(0));
        return [{ query: q, keys: ['n.id'] }];
      });
      const known = await knownContents();
      if (!known.read) {
        known.read = true;
        const walked = await pager.walk<NotificationListed & Content>(db, walks, withContents, page, true);
        const rows = walked.rows.map((row) => ({ id: row.id, content_id: row.content_id, head: row.head }));
        const contents = walked.rows.map((row) => {
          let content = known.byId.get(row.content_id);
          if (!content) remember(known, row.content_id, (content = contentOf(row)));
          return content;
        });
        return { userId, rows, contents, next: walked.next };
      }
      const walked = await pager.walk<NotificationListed>(db, walks, listed, page, true);
      const missing = new Set<string>();
      for (const row of walked.rows) if (!known.byId.has(row.content_id)) missing.add(row.content_id);
      const found = new Map<string, Content>();
      if (missing.size > 0)
        for (const row of await db.selectFrom('notification_contents').select(['id', ...CONTENT_COLUMNS]).where('id', 'in', [...missing]).execute()) {
          const content = contentOf(row);
          found.set(row.id, content);
          remember(known, row.id, content);
        }
      const rows: NotificationListed[] = [];
      const contents: Content[] = [];
      for (const row of walked.rows) {
        const content = known.byId.get(row.content_id) ?? found.get(row.content_id);
        // (A content deleted meanwhile takes its notifications with it, as the join would have.)
        if (content) {
          rows.push(row);
          contents.push(content);
        }
      }
      return { userId, rows, contents, next: walked.next };
    },
    /**
     * Oldest first, after the user's notification numbered `afterSeq`: what a live stream has not sent yet.
     * By number, not by id: a notification committed late has a later number, never a place behind.
     */
    listAfter(userId: string, afterSeq: number, limit: number): Promise<NotificationRow[]> {
      return withContent()
        .where('n.user_id', '=', userId)
        .where('n.seq', '>', afterSeq)
        .orderBy('n.seq')
        .limit(limit)
        .execute();
    },
    /** The number of the user's newest notification, 0 when there is none. */
    async lastSeq(userId: string): Promise<number> {
      const row = await db
        .selectFrom('notifications')
        .select('seq')
        .where('user_id', '=', userId)
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirst();
      return Number(row?.seq ?? 0);
    },
    /**
     * Where a stream resumes after the notification `id` (a `Last-Event-ID`): its number; for an id that is not
     * one of the user's (deleted, or made up), the number of the newest of theirs made up to that id.
     */
    async seqAfter(userId: string, id: string): Promise<number> {
      const exact = await db
        .selectFrom('notifications')
        .select('seq')
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (exact) return Number(exact.seq);
      const before = await db
        .selectFrom('notifications')
        .select('seq')
        .where('user_id', '=', userId)
        .where('id', '<=', id)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return Number(before?.seq ?? 0);
    },
    /** The user's counts, remembered while no counter is written. */
    counts(userId: string): Promise<{ readonly total: number; readonly unseen: number }> {
      return pager.memo(`notification_counters\u0000${userId}`, ['notification_counters'], async () => {
        const row = await db
          .selectFrom('notification_counters')
          .select(['total', 'unseen'])
          .where('user_id', '=', userId)
          .executeTakeFirst();
        return { total: row?.total ?? 0, unseen: row?.unseen ?? 0 };
      });
    },
    /** Marks the user's unseen notifications seen (all, or those of `ids`); answers how many changed. */
    async markSeen(userId: string, ids: string[] | undefined, now: string): Promise<number> {
      if (ids !== undefined && ids.length === 0) return 0;
      let q = db.updateTable('notifications').set({ seen: 1, updated_at: now }).where('user_id', '=', userId).where('seen', '=', sql.lit(0));
      if (ids !== undefined) q = q.where('id', 'in', ids);
      const changed = Number((await q.executeTakeFirst()).numUpdatedRows);
      if (changed > 0) await count([{ user_id: userId, total: 0, unseen: -changed, seq: 0 }]);
      return changed;
    },
  };
}
export type NotificationsRepo = ReturnType<typeof notificationsRepo>;

/** Who a fan-out reaches, walked in user-id order so that a batch can resume after the last one done. */
export type Audience =
  | {
      kind: 'followers';
      followable_type: 'Page' | 'User';
      followable_id: string;
      /** Those who also follow this page were reached by an earlier audience of the same job. */
      except_followers_of_page?: string;
    }
  | { kind: 'attendees'; event_id: string; answers: string[] }
  | { kind: 'users'; user_ids: string[] };

/** The fan-out outbox. */
export function notificationJobsRepo(db: Kysely<Database>, dialect: Dialect) {
  return {
    async insert(row: NotificationJobRow): Promise<void> {
      await db.insertInto('notification_jobs').values(row).execute();
    },
    getById(id: string): Promise<NotificationJobRow | undefined> {
      return db.selectFrom('notification_jobs').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** The job, locked until the transaction ends (PostgreSQL; SQLite's writer holds the only write lock already). */
    getForUpdate(id: string): Promise<NotificationJobRow | undefined> {
      const q = db.selectFrom('notification_jobs').selectAll().where('id', '=', id);
      return (dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
    },
    /** Jobs nobody holds: never claimed, or whose claim has run out (a process died holding it). */
    due(now: string, limit: number): Promise<NotificationJobRow[]> {
      return db
        .selectFrom('notification_jobs')
        .selectAll()
        .where('lease_until', '<=', now)
        .orderBy('lease_until')
        .orderBy('id')
        .limit(limit)
        .execute();
    },
    /**
     * Claims the next job nobody holds, until `leaseUntil`, in one statement: on PostgreSQL the row is taken
     * `FOR UPDATE SKIP LOCKED`, so processes claiming at once each get a different job, never the same one;
     * on SQLite the statement runs under the single writer's lock. Undefined when none is free.
     */
    async claimNext(now: string, leaseUntil: string): Promise<NotificationJobRow | undefined> {
      let next = db
        .selectFrom('notification_jobs')
        .select('id')
        .where('lease_until', '<=', now)
        .where('lease_until', '<', leaseUntil)
        .orderBy('lease_until')
        .orderBy('id')
        .limit(1);
      if (dialect === 'postgres') next = next.forUpdate().skipLocked();
      return db
        .updateTable('notification_jobs')
        .set({ lease_until: leaseUntil })
        .where('id', '=', next)
        .where('lease_until', '<=', now)
        .returningAll()
        .executeTakeFirst();
    },
    /** Takes or keeps a job until `leaseUntil`, if it is still as it was read: false when someone else has it. */
    async claim(id: string, heldUntil: string, leaseUntil: string): Promise<boolean> {
      const result = await db
        .updateTable('notification_jobs')
        .set({ lease_until: leaseUntil })
        .where('id', '=', id)
        .where('lease_until', '=', heldUntil)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async advance(id: string, changes: { audience_index: number; cursor: string; lease_until: string }): Promise<void> {
      await db.updateTable('notification_jobs').set(changes).where('id', '=', id).execute();
    },
    async delete(id: string): Promise<void> {
      await db.deleteFrom('notification_jobs').where('id', '=', id).execute();
    },
    async pending(): Promise<number> {
      const row = await db
        .selectFrom('notification_jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** The next users of an audience after `after`, in id order; for followers, only those who followed by `before`. */
    async nextRecipients(audience: Audience, after: string, before: string, limit: number): Promise<string[]> {
      if (audience.kind === 'users') return [...new Set(audience.user_ids)].filter((id) => id > after).sort().slice(0, limit);
      if (audience.kind === 'attendees') {
        const rows = await db
          .selectFrom('event_attendances')
          .select('user_id')
          .where('event_id', '=', audience.event_id)
          .where('answer', 'in', audience.answers)
          .where('user_id', '>', after)
          .orderBy('user_id')
          .limit(limit)
          .execute();
        return rows.map((r) => r.user_id);
      }
      let q = db
        .selectFrom('follows as f')
        .select('f.user_id')
        .where('f.followable_type', '=', fixed(audience.followable_type, FOLLOWABLE_TYPES))
        .where('f.followable_id', '=', audience.followable_id)
        .where('f.user_id', '>', after)
        .where('f.created_at', '<=', before);
      const page = audience.except_followers_of_page;
      if (page !== undefined)
        q = q.where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('follows as p')
                .select('p.id')
                .whereRef('p.user_id', '=', 'f.user_id')
                .where('p.followable_type', '=', sql.lit('Page'))
                .where('p.followable_id', '=', page),
            ),
          ),
        );
      const rows = await q.orderBy('f.user_id').limit(limit).execute();
      return rows.map((r) => r.user_id);
    },
  };
}
export type NotificationJobsRepo = ReturnType<typeof notificationJobsRepo>;
