import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import type { Database, NotificationContentTable, NotificationJobTable, NotificationTable } from './schema.js';
import { type Walked, Pager } from './paging.js';

/** What every recipient of one notification is told. */
export type NotificationContentRow = Selectable<NotificationContentTable>;
/** A user's notification, with what it says. */
export type NotificationRow = Selectable<NotificationTable> & Omit<NotificationContentRow, 'id' | 'created_at'>;
export type NotificationJobRow = Selectable<NotificationJobTable>;

/** Rows per insert statement: well under SQLite's limit of bound parameters. */
const ROWS_PER_INSERT = 500;

export function notificationsRepo(db: Kysely<Database>, pager: Pager = new Pager()) {
  const withContent = (
    query = db.selectFrom('notifications as n').innerJoin('notification_contents as c', 'c.id', 'n.content_id'),
  ) =>
    query
      .selectAll('n')
      .select([
        'c.notification_type',
        'c.action_name',
        'c.subject_type',
        'c.subject_id',
        'c.subject_slug',
        'c.subject_name',
        'c.target_type',
        'c.target_id',
        'c.target_slug',
        'c.target_name',
        'c.final_target_type',
        'c.final_target_id',
        'c.final_target_slug',
        'c.final_target_name',
        'c.link_type',
        'c.link_id',
        'c.link_slug',
        'c.picture_url',
        'c.comment_info',
      ]);
  /** Adds to the counters of each user: one statement for the whole batch. */
  const count = async (changes: { user_id: string; total: number; unseen: number }[]) => {
    if (changes.length === 0) return;
    await db
      .insertInto('notification_counters')
      .values(changes)
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet((eb) => ({
          total: eb('notification_counters.total', '+', eb.ref('excluded.total')),
          unseen: eb('notification_counters.unseen', '+', eb.ref('excluded.unseen')),
        })),
      )
      .execute();
  };
  return {
    async insertContent(row: NotificationContentRow): Promise<void> {
      await db.insertInto('notification_contents').values(row).execute();
    },
    /**
     * Gives each user the notification (ids from `newId`, in the order given). A user who already has this
     * one is skipped, so a batch run twice notifies nobody twice. Answers who got one.
     */
    async insertFor(contentId: string, recipients: { userId: string; id: string }[], now: string): Promise<string[]> {
      const notified: string[] = [];
      for (let i = 0; i < recipients.length; i += ROWS_PER_INSERT) {
        const rows: Insertable<NotificationTable>[] = recipients.slice(i, i + ROWS_PER_INSERT).map((r) => ({
          id: r.id,
          user_id: r.userId,
          content_id: contentId,
          seen: 0,
          created_at: now,
          updated_at: now,
        }));
        const inserted = await db
          .insertInto('notifications')
          .values(rows)
          .onConflict((oc) => oc.columns(['content_id', 'user_id']).doNothing())
          .returning('user_id')
          .execute();
        notified.push(...inserted.map((r) => r.user_id));
      }
      await count(notified.map((user_id) => ({ user_id, total: 1, unseen: 1 })));
      return notified;
    },
    /** Newest first. */
    list(userId: string, unseenOnly: boolean, page: Pagination): Promise<Walked<NotificationRow>> {
      let q = db.selectFrom('notifications as n').where('n.user_id', '=', userId);
      if (unseenOnly) q = q.where('n.seen', '=', 0);
      return pager.walk<NotificationRow>(
        [{ query: q, keys: ['n.id'] }],
        (query) => withContent(query.innerJoin('notification_contents as c', 'c.id', 'n.content_id')),
        page,
        true,
      );
    },
    /** Oldest first, after a given notification: what a live stream has not sent yet. */
    listAfter(userId: string, afterId: string, limit: number): Promise<NotificationRow[]> {
      return withContent()
        .where('n.user_id', '=', userId)
        .where('n.id', '>', afterId)
        .orderBy('n.id')
        .limit(limit)
        .execute();
    },
    /** The newest notification's id, or '' when there is none. */
    async lastId(userId: string): Promise<string> {
      const row = await db
        .selectFrom('notifications')
        .select('id')
        .where('user_id', '=', userId)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row?.id ?? '';
    },
    async counts(userId: string): Promise<{ total: number; unseen: number }> {
      const row = await db
        .selectFrom('notification_counters')
        .select(['total', 'unseen'])
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return { total: row?.total ?? 0, unseen: row?.unseen ?? 0 };
    },
    /** Marks the user's unseen notifications seen (all, or those of `ids`); answers how many changed. */
    async markSeen(userId: string, ids: string[] | undefined, now: string): Promise<number> {
      if (ids !== undefined && ids.length === 0) return 0;
      let q = db.updateTable('notifications').set({ seen: 1, updated_at: now }).where('user_id', '=', userId).where('seen', '=', 0);
      if (ids !== undefined) q = q.where('id', 'in', ids);
      const changed = Number((await q.executeTakeFirst()).numUpdatedRows);
      if (changed > 0) await count([{ user_id: userId, total: 0, unseen: -changed }]);
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
export function notificationJobsRepo(db: Kysely<Database>) {
  return {
    async insert(row: NotificationJobRow): Promise<void> {
      await db.insertInto('notification_jobs').values(row).execute();
    },
    getById(id: string): Promise<NotificationJobRow | undefined> {
      return db.selectFrom('notification_jobs').selectAll().where('id', '=', id).executeTakeFirst();
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
        .where('f.followable_type', '=', audience.followable_type)
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
                .where('p.followable_type', '=', 'Page')
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
