import { sql, type Kysely, type Selectable } from 'kysely';
import { FOLLOWABLE_TYPES } from '../shared/schemas/follows.js';
import { fixed } from './dialect.js';
import { followsPage } from './follows.js';
import type { Dialect } from './dialect.js';
import type { Pagination } from '../shared/schemas/common.js';
import type { Database } from './schema.js';
import { readsInPage } from './visibility.js';
import { listPage, type Listed, type Selection } from './paging.js';
import { byId, chunks, deleter, inserter } from './rows.js';

/** A user's notification's own columns, but its number (`seq`, the live stream's). */
export type NotificationOwn = Omit<Selectable<Database['notifications']>, 'seq'>;
/** What every recipient of one notification is told. */
export type NotificationContentRow = Selectable<Database['notification_contents']>;
/** A user's notification, with what it says. */
export type NotificationRow = Selectable<Database['notifications']> & Omit<NotificationContentRow, 'id' | 'created_at'> & SubjectSuspension;
/** The actor's suspension, if any (in force or not): while in force, what they wrote is not quoted. */
export type SubjectSuspension = Record<'subject_suspended' | 'subject_suspended_until', string | null>;
export type NotificationJobRow = Selectable<Database['notification_jobs']>;

/** What a notification says, of its content: every column but the content's own id and date. */
export type Content = Omit<NotificationContentRow, 'id' | 'created_at'>;
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

type CounterChange = { user_id: string; total: number; unseen: number; seq: number };
/**
 * `notified` collects the users given new notifications, told at commit to this process's live streams. Other
 * processes are told by the database: on PostgreSQL the insert's trigger NOTIFYs them (migration 0044), on SQLite
 * they look at the table's version.
 */
export function notificationsRepo(db: Kysely<Database>, notified?: (userIds: readonly string[]) => void) {
  const withContents: Selection = (query) =>
    query
      .innerJoin('notification_contents as c', 'c.id', 'n.content_id')
      .leftJoin('suspensions as su', 'su.user_id', 'c.subject_id')
      .selectAll('n')
      .select(CONTENT_COLUMNS.map((column) => `c.${column}` as const))
      .select(['su.user_id as subject_suspended', 'su.until as subject_suspended_until']);
  /** Adds to each user's counter and answers their new `seq`. In id order: transactions lock counters in one order. */
  const count = async (changes: CounterChange[]) => {
    const rows = await db
      .insertInto('notification_counters')
      .values([...changes].sort((a, b) => (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0)))
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet((eb) => ({
          total: eb('notification_counters.total', '+', eb.ref('excluded.total')),
          unseen: eb('notification_counters.unseen', '+', eb.ref('excluded.unseen')),
          seq: eb('notification_counters.seq', '+', eb.ref('excluded.seq')),
        })),
      )
      .returning(['user_id', 'seq'])
      .execute();
    return new Map(rows.map((r) => [r.user_id, Number(r.seq)]));
  };
  return {
    /** Locks their counters in id order until the commit, as a batch does: for an act that tells them one by one. */
    holdCounters: async (userIds: string[]) => void (await count([...new Set(userIds)].map((user_id) => ({ user_id, total: 0, unseen: 0, seq: 0 })))),
    insertContent: inserter(db, 'notification_contents'),
    /**
     * Gives each user the notification; answers who got one. The counter moves first and stays locked until commit, so
     * notifications appear in `seq` order across processes. One who had it (a batch run twice) gets its counts back,
     * not its number: numbers need only grow.
     */
    async insertFor(contentId: string, recipients: { userId: string; id: string }[], now: string): Promise<string[]> {
      const added: string[] = [];
      const unique = [...new Map(recipients.map((r) => [r.userId, r])).values()];
      for (const chunk of chunks(unique)) {
        const seqOf = await count(chunk.map((r) => ({ user_id: r.userId, total: 1, unseen: 1, seq: 1 })));
        const rows: Selectable<Database['notifications']>[] = chunk.map((r) => ({
          id: r.id,
          user_id: r.userId,
          content_id: contentId,
          seen: 0,
          created_at: now,
          updated_at: now,
          seq: seqOf.get(r.userId)!,
        }));
        const inserted = await db
          .insertInto('notifications')
          .values(rows)
          .onConflict((oc) => oc.columns(['content_id', 'user_id']).doNothing())
          .returning('user_id')
          .execute();
        const got = new Set(inserted.map((r) => r.user_id));
        added.push(...got);
        if (got.size < chunk.length)
          await count(chunk.filter((r) => !got.has(r.userId)).map((r) => ({ user_id: r.userId, total: -1, unseen: -1, seq: 0 })));
      }
      if (added.length > 0) notified?.(added);
      return added;
    },
    /** Newest first. */
    list(userId: string, unseenOnly: boolean, page: Pagination): Promise<Listed<NotificationRow>> {
      let q = db.selectFrom('notifications as n').where('n.user_id', '=', userId);
      if (unseenOnly) q = q.where('n.seen', '=', sql.lit(0));
      const kept = db.selectFrom('notification_counters').select(unseenOnly ? 'unseen' : 'total').where('notification_counters.user_id', '=', userId);
      return listPage<NotificationRow>(db, [{ query: q, keys: ['n.id'] }], withContents, page, sql<number>`coalesce(${kept}, 0)`, { desc: true });
    },
    /** Oldest first after `afterSeq`, by number, not id: a notification committed late never lands behind. */
    listAfter(userId: string, afterSeq: number, limit: number): Promise<NotificationRow[]> {
      const q = db.selectFrom('notifications as n').where('n.user_id', '=', userId).where('n.seq', '>', afterSeq).orderBy('n.seq').limit(limit);
      return withContents(q).execute() as Promise<NotificationRow[]>;
    },
    /** Each user's `seq` (may exceed their newest notification's: numbers only grow); the never notified left out. */
    async latestSeqs(userIds: readonly string[]): Promise<Map<string, number>> {
      const seqs = new Map<string, number>();
      for (const some of chunks(userIds)) {
        const rows = await db.selectFrom('notification_counters').select(['user_id', 'seq']).where('user_id', 'in', some).execute();
        for (const row of rows) seqs.set(row.user_id, Number(row.seq));
      }
      return seqs;
    },
    /** Where a stream resumes after `Last-Event-ID`: that notification, or (deleted, made up) their newest before. */
    async seqAfter(userId: string, id: string): Promise<number> {
      const before = await db.selectFrom('notifications').select('seq').where('user_id', '=', userId).where('id', '<=', id).orderBy('id', 'desc').limit(1).executeTakeFirst();
      return Number(before?.seq ?? 0);
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

/** Who a fan-out reaches, walked in user-id order so that a batch can resume after the last one done. */
export type Audience =
  | {
      kind: 'followers';
      followable_type: 'Page' | 'User';
      followable_id: string;
      /** Those who also follow this page were reached by an earlier audience of the same job. */
      except_followers_of_page?: string;
    }
  | { kind: 'attendees'; event_id: string; answers: string[]; /** Only those who read this page's content (`readsInPage`). */ in_page?: string }
  | { kind: 'users'; user_ids: string[]; /** As the attendees'. */ in_page?: string };

/** The fan-out outbox. */
export function notificationJobsRepo(db: Kysely<Database>, dialect: Dialect) {
  /** Jobs nobody holds: never claimed, or whose claim has run out (a process died holding it). */
  const free = (now: string) => db.selectFrom('notification_jobs').where('lease_until', '<=', now).orderBy('lease_until').orderBy('id');
  return {
    insert: inserter(db, 'notification_jobs'),
    getForUpdate: byId(db, 'notification_jobs', true),
    due(now: string, limit: number): Promise<NotificationJobRow[]> {
      return free(now).selectAll().limit(limit).execute();
    },
    /**
     * Claims the next job nobody holds, until `leaseUntil`, in one statement (as `deliveries.claimDue`: SKIP LOCKED
     * on PostgreSQL, the single writer on SQLite). Undefined when none is free.
     */
    async claimNext(now: string, leaseUntil: string): Promise<NotificationJobRow | undefined> {
      let next = free(now).select('id').where('lease_until', '<', leaseUntil).limit(1);
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
      const result = await db.updateTable('notification_jobs').set({ lease_until: leaseUntil }).where('id', '=', id).where('lease_until', '=', heldUntil).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async advance(id: string, changes: { audience_index: number; cursor: string; lease_until: string }): Promise<void> {
      await db.updateTable('notification_jobs').set(changes).where('id', '=', id).execute();
    },
    delete: deleter(db, 'notification_jobs'),
    /** The next users of an audience after `after`, in id order; for followers, only those who followed by `before`. */
    async nextRecipients(audience: Audience, after: string, before: string, limit: number): Promise<string[]> {
      if (audience.kind === 'users') {
        const ids = [...new Set(audience.user_ids)].filter((id) => id > after).sort();
        const page = audience.in_page;
        if (page === undefined || ids.length === 0) return ids.slice(0, limit);
        const rows = await db.selectFrom('users').select('id').where('id', 'in', ids).where((eb) => readsInPage(eb, sql.ref('users.id'), page)).orderBy('id').limit(limit).execute();
        return rows.map((r) => r.id);
      }
      if (audience.kind === 'attendees') {
        const rows = await db
          .selectFrom('event_attendances')
          .select('user_id')
          .where('event_id', '=', audience.event_id)
          .where('answer', 'in', audience.answers)
          .where('user_id', '>', after)
          .$if(audience.in_page !== undefined, (q) => q.where((eb) => readsInPage(eb, sql.ref('event_attendances.user_id'), audience.in_page!)))
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
        q = q.where((eb) => eb.not(followsPage(sql.ref('f.user_id'), page)));
      const rows = await q.orderBy('f.user_id').limit(limit).execute();
      return rows.map((r) => r.user_id);
    },
  };
}
