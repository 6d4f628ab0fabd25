import type { Command } from 'commander';
import type { Notification } from '../../shared/schemas/notifications.js';
import { pageQuery, paginationOptions, withContext, type PageOptions } from '../command-kit.js';
import type { Column } from '../output.js';

export const NOTIFICATION_COLUMNS: Column<Notification>[] = [
  { header: 'id', value: (n) => n.id },
  { header: 'when', value: (n) => n.created_at },
  { header: 'type', value: (n) => n.notification_type },
  { header: 'what', value: (n) => describeNotification(n) },
  { header: 'seen', value: (n) => (n.seen ? 'yes' : 'no') },
];

/** On a terminal, a feed reads best as time, kind and sentence. */
const WATCH_COLUMNS: Column<Notification>[] = [
  { header: 'when', value: (n) => new Date(n.created_at).toLocaleTimeString() },
  { header: 'type', value: (n) => n.notification_type },
  { header: 'what', value: (n) => describeNotification(n) },
];

/** One line a person reads: "Ada Lovelace commented on your status in Garden Club". */
export function describeNotification(n: Notification): string {
  const where = n.final_target_name;
  // A status on a profile happened on the author's profile: "in Ada Lovelace" reads oddly.
  const inPlace = n.final_target_type === 'User' ? '' : ` in ${where}`;
  switch (n.notification_type) {
    case 'follow':
      return n.target_type === 'Page' ? `${n.subject_name} followed ${where}` : `${n.subject_name} followed you`;
    case 'status':
      return `${n.subject_name} posted${inPlace}: ${n.target_name ?? ''}`;
    case 'comment':
      return `${n.subject_name} commented on your status${inPlace}: ${'excerpt' in n.comment_info ? n.comment_info.excerpt : ''}`;
    case 'like':
      return `${n.subject_name} liked your ${n.target_type === 'Comment' ? 'comment' : 'status'}${inPlace}`;
    case 'page_access_request':
      return `${n.subject_name} asks to join ${where}`;
    case 'page_access_request_accepted':
      return `${n.subject_name} accepted your request to join ${where}`;
    case 'invite':
      return `${n.subject_name} invited you to ${where}`;
    case 'invite_accepted':
      return `${n.subject_name} accepted the invite to ${where}`;
    case 'event_attendance':
      return `${n.subject_name} is going to ${where}`;
  }
}

const collect = (value: string, previous: string[] = []) => [...previous, ...value.split(',').filter(Boolean)];

/** The user named by `--user`, or the caller. */
async function userOf(client: { get<T>(path: string): Promise<T> }, user: string | undefined): Promise<string> {
  return user ?? (await client.get<{ id: string }>('/me')).id;
}

export function registerNotificationCommands(program: Command): void {
  const notifications = program.command('notifications').description("a user's notifications: list, mark seen, watch live");

  paginationOptions(
    notifications
      .command('list')
      .description('list notifications, newest first')
      .option('--user <id>', 'whose notifications (default: you; others need the Admins role)')
      .option('--unseen', 'only those not seen yet'),
  ).action(
    withContext<PageOptions & { user?: string; unseen?: boolean }>(async ({ client, out }, o) => {
      const { seg } = await import('../../client/api-client.js');
      const userId = await userOf(client, o.user);
      const { data: items, total } = await client.answer<Notification[]>('GET', `/users/${seg(userId)}/notifications`, {
        query: { ...pageQuery(o), status: o.unseen ? 'unseen' : undefined },
      });
      if (out.json) return out.printJson(items);
      await out.list({ items, total_items: total ?? items.length }, NOTIFICATION_COLUMNS, pageQuery(o));
    }),
  );

  notifications
    .command('watch')
    .description('print notifications as they come, until interrupted (Ctrl-C)')
    .option('--user <id>', 'whose notifications (default: you; others need the Admins role)')
    .option('--since <id>', 'first replay what came after this notification')
    .action(
      withContext<{ user?: string; since?: string }>(async ({ client, out }, o) => {
        const { watchNotifications } = await import('../../client/event-stream.js');
        const userId = await userOf(client, o.user);
        const stop = new AbortController();
        const interrupted = () => stop.abort();
        process.once('SIGINT', interrupted);
        process.once('SIGTERM', interrupted);
        if (out.tty && !out.json) out.note(`Watching the notifications of ${userId}; Ctrl-C to stop.`);
        try {
          for await (const { data } of watchNotifications(client, userId, {
            signal: stop.signal,
            lastEventId: o.since,
            onDrop: (e) => out.note(`connection lost (${(e as Error).message}); reconnecting…`),
          })) {
            out.row(data as Notification, out.tty ? WATCH_COLUMNS : NOTIFICATION_COLUMNS);
          }
        } finally {
          process.off('SIGINT', interrupted);
          process.off('SIGTERM', interrupted);
        }
      }),
    );

  notifications
    .command('seen')
    .description('mark notifications seen: all unseen ones, or only those of --ids')
    .option('--user <id>', 'whose notifications (default: you)')
    .option('--ids <ids>', 'only these notifications (comma-separated or repeated)', collect)
    .option('-y, --yes', 'do not ask for confirmation when marking all')
    .action(
      withContext<{ user?: string; ids?: string[]; yes?: boolean }>(async ({ client, out }, o) => {
        const [{ seg }, { confirmOrStop }] = await Promise.all([import('../../client/api-client.js'), import('../confirm.js')]);
        const userId = await userOf(client, o.user);
        if (!o.ids) {
          // On a terminal, marking everything is confirmed with the number it concerns.
          if (!o.yes && process.stdin.isTTY && process.stdout.isTTY) {
            const unseen = await client.get<Notification[]>(`/users/${seg(userId)}/notifications`, { status: 'unseen', per_page: 100 });
            if (unseen.length === 0) return out.done('No unseen notifications');
            await confirmOrStop(`Mark ${unseen.length === 100 ? '100 or more' : unseen.length} unseen notifications as seen?`, false);
          }
        }
        const result = await client.put<{ updated: number }>(
          `/users/${seg(userId)}/set_notifications_seen`,
          o.ids ? { notification_ids: o.ids } : undefined,
        );
        if (out.json) return out.printJson(result);
        out.done(`${result.updated} notification${result.updated === 1 ? '' : 's'} marked seen`);
      }),
    );
}
