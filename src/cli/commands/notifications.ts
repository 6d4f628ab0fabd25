import type { Command } from 'commander';
import type { Notification } from '../../shared/schemas/notifications.js';
import { onSignals } from '../errors.js';
import { examples, fetchList, paginationOptions, withContext, type PageOptions } from '../command-kit.js';
import type { IdList, Names } from '../names.js';
import type { Column } from '../output.js';

// The sentence says who did what, and to what: readable at 80 columns, the type (which the sentence says in words)
// and whether it was seen (the same on every row of `--unseen`), last, are left out before it is cut below `room`.
export const NOTIFICATION_COLUMNS: Column<Notification>[] = [
  { header: 'id', value: (n) => n.id, id: true },
  { header: 'when', value: (n) => n.created_at },
  { header: 'what', value: (n) => describeNotification(n), room: 30 },
  { header: 'type', value: (n) => n.notification_type },
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
      // A removed status, or one by a suspended author, is no longer quoted: the API does not say which.
      return `${n.subject_name} posted${inPlace}: ${n.target_name ?? '(no longer shown)'}`;
    case 'comment':
      return `${n.subject_name} commented on your status${inPlace}: ${'excerpt' in n.comment_info ? n.comment_info.excerpt : '(no longer shown)'}`;
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
    case 'content_removed':
      return `${n.subject_name} removed your ${n.target_type === 'Comment' ? 'comment' : 'status'}${inPlace}: ${n.target_name ?? ''}`;
    case 'report':
      return n.target_type === 'User'
        ? `${n.subject_name} reported ${n.final_target_name}`
        : `${n.subject_name} reported a ${n.target_type === 'Comment' ? 'comment' : 'status'}${inPlace}`;
    case 'report_resolved': {
      const what = n.target_type === 'User' ? 'user' : n.target_type === 'Comment' ? 'comment' : 'status';
      const named = n.target_name ? `: ${n.target_name}` : '';
      if (n.action_name === 'removed') return `${n.subject_name} removed the ${what} you reported${named}`;
      if (n.action_name === 'suspended')
        return `${n.subject_name} suspended ${what === 'user' ? 'the user' : `the author of the ${what}`} you reported${named}`;
      return `${n.subject_name} ${n.action_name} your report on ${n.target_name ?? `a ${what}`}`;
    }
    case 'suspension_lifted':
      return `${n.subject_name} lifted your suspension`;
  }
}

const collect = (value: string, previous: string[] = []) => [...previous, ...value.split(',').filter(Boolean)];

/** A user's notifications, as ids given back are found among them (`seen --ids`, `watch --since`). */
const notificationsOf = (userId: string): IdList => ({
  label: 'notification',
  path: `/users/${encodeURIComponent(userId)}/notifications`,
  bare: true,
  newestFirst: true,
  among: 'of this user',
});

/** The user named by `--user` (id or nickname), or the caller. */
async function userOf(client: { get<T>(path: string): Promise<T> }, names: Names, user: string | undefined): Promise<string> {
  return user ? names.resolve('user', user) : (await client.get<{ id: string }>('/me')).id;
}

export function registerNotificationCommands(program: Command): void {
  const notifications = program.command('notifications').description("a user's notifications: list, mark seen, watch live");

  examples(
    paginationOptions(
      notifications
        .command('list')
        .description('list notifications, newest first')
        .option('--user <user>', 'whose notifications: id or nickname (default: you; others need the Admins role)')
        .option('--unseen', 'only those not seen yet'),
    ),
    'agora notifications list --unseen',
    'agora notifications list --user linus --all',
  ).action(
    withContext<PageOptions & { user?: string; unseen?: boolean }>(async ({ client, out, names }, o) => {
      const { seg } = await import('../../client/api-client.js');
      const userId = await userOf(client, names, o.user);
      // A bare array with the total in X-Total-Count (docs/api.md): --json prints the array, as the API does.
      const listing = await fetchList<Notification>(
        client,
        `/users/${seg(userId)}/notifications`,
        { status: o.unseen ? 'unseen' : undefined },
        o,
        true,
      );
      if (out.json) return out.printJson(listing.items);
      await out.list(listing, NOTIFICATION_COLUMNS, { page: o.page ?? 1, perPage: o.perPage, fields: o.fields, header: o.header });
    }),
  );

  examples(
    notifications
      .command('watch')
      .description('print notifications as they come, until interrupted (Ctrl-C)')
      .option('--user <user>', 'whose notifications: id or nickname (default: you; others need the Admins role)')
      .option('--since <id>', 'first replay what came after this notification (its id, or a prefix of it)'),
    'agora notifications watch',
    'agora notifications watch --user linus | tee notifications.tsv',
  ).action(
      withContext<{ user?: string; since?: string }>(async ({ client, out, names }, o) => {
        const { watchNotifications } = await import('../../client/event-stream.js');
        const userId = await userOf(client, names, o.user);
        // Taken as `seen --ids` takes them (an id, or the prefix a table shows), and checked before the stream opens.
        const since = o.since === undefined ? undefined : (await names.fullIds(notificationsOf(userId), [o.since]))[0];
        const stop = new AbortController();
        let signal: NodeJS.Signals | undefined;
        const interrupted = (received: NodeJS.Signals) => {
          signal = received;
          stop.abort();
        };
        const stopListening = onSignals(['SIGINT', 'SIGTERM'], interrupted);
        if (out.tty && !out.json) {
          const { seg } = await import('../../client/api-client.js');
          const user = await client.get<{ nickname: string }>(`/users/${seg(userId)}`);
          out.note(`Watching the notifications of ${user.nickname}; Ctrl-C to stop.`);
        }
        // One line when the connection drops and one when it is back, not a line for every try in between.
        let down = false;
        try {
          for await (const { data } of watchNotifications(client, userId, {
            signal: stop.signal,
            lastEventId: since,
            onDrop: (e) => {
              if (!down) out.note(`connection lost (${(e as Error).message}); reconnecting…`);
              down = true;
            },
            onOpen: () => {
              if (down) out.note('reconnected');
              down = false;
            },
          })) {
            out.row(data as Notification, out.tty ? WATCH_COLUMNS : NOTIFICATION_COLUMNS);
          }
        } finally {
          stopListening();
        }
        if (signal) {
          const { InterruptedError } = await import('../errors.js');
          throw new InterruptedError('', { cause: signal });
        }
      }),
    );

  examples(
    notifications
      .command('seen')
      .description('mark notifications seen: all unseen ones, or only those of --ids')
      .option('--user <user>', 'whose notifications: id or nickname (default: you)')
      .option('--ids <ids>', 'only these notifications (comma-separated or repeated)', collect)
      .option('-y, --yes', 'do not ask for confirmation when marking all'),
    'agora notifications seen --yes',
    'agora notifications seen --ids 3f2a…,9b1c…',
  ).action(
      withContext<{ user?: string; ids?: string[]; yes?: boolean }>(async ({ client, out, names }, o) => {
        const [{ seg }, { confirmOrStop }] = await Promise.all([import('../../client/api-client.js'), import('../confirm.js')]);
        const userId = await userOf(client, names, o.user);
        if (!o.ids) {
          // On a terminal, marking everything is confirmed with the number it concerns.
          if (!o.yes && process.stdin.isTTY && process.stdout.isTTY) {
            const unseen = await client.get<Notification[]>(`/users/${seg(userId)}/notifications`, { status: 'unseen', per_page: 100 });
            if (unseen.length === 0) return out.done('No unseen notifications');
            await confirmOrStop(`Mark ${unseen.length === 100 ? '100 or more' : unseen.length} unseen notifications as seen?`, false);
          }
        }
        const path = `/users/${seg(userId)}`;
        const ids = o.ids && (await names.fullIds(notificationsOf(userId), o.ids));
        const result = await client.put<{ updated: number }>(`${path}/set_notifications_seen`, ids ? { notification_ids: ids } : undefined);
        // Ids that name none of the user's notifications are a mistake to report, not "0 marked" (docs/architecture.md, "The client and the CLI");
        // ids of notifications seen already are not.
        if (ids && result.updated === 0) {
          const { items } = await fetchList<Notification>(client, `${path}/notifications`, {}, { perPage: 100, all: true }, true);
          if (!items.some((n) => ids.includes(n.id))) {
            const { NameNotFoundError } = await import('../names.js');
            throw new NameNotFoundError(`No notification of this user has the id ${ids.join(' or ')}: nothing marked seen`);
          }
        }
        if (out.json) return out.printJson(result);
        // Of ids given, those not marked were seen already (or, among others that were, not this user's).
        const already = ids ? ids.length - result.updated : 0;
        const rest = already > 0 ? `; ${already} ${already === 1 ? 'was' : 'were'} seen already` : '';
        out.done(`${result.updated} notification${result.updated === 1 ? '' : 's'} marked seen${rest}`);
      }),
    );
}
