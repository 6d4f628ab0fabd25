import type { Command } from 'commander';
import type { ListResult } from '../../shared/schemas/common.js';
import type { ModerationItem } from '../../shared/schemas/moderation.js';
import type { Report } from '../../shared/schemas/reports.js';
import type { User } from '../../shared/schemas/users.js';
import { examples, paginationOptions, showList, withContext, type PageOptions } from '../command-kit.js';
import type { Column } from '../output.js';
import { reportedThing, suspensionNow } from '../queue/items.js';
import { suspensionEnd } from '../suspensions.js';

/** What the API answers an act on an item someone else settled (or withdrew) first. */
const SETTLED_ELSEWHERE = new Set(['not_found', 'conflict', 'already_accepted', 'already_refused']);

/**
 * A report's `user` is its first reporter; `reports` and `about` (what is reported) are a report's only. `suspended`:
 * until when the user an item is about is suspended (the asker, the invitee; the reported user or the content's author).
 */
export const QUEUE_COLUMNS: Column<ModerationItem>[] = [
  { header: 'kind', value: (i) => i.kind },
  { header: 'id', value: (i) => i.id },
  { header: 'page', value: (i) => i.page?.name ?? '' },
  { header: 'user', value: (i) => i.user.nickname },
  { header: 'waiting since', value: (i) => i.created_at },
  { header: 'reports', value: (i) => (i.kind === 'report' ? String(i.reports) : '') },
  { header: 'about', value: (i) => (i.kind === 'report' ? `${i.reason}: ${reportedThing(i, 60)}` : '') },
  {
    header: 'suspended',
    value: (i) => {
      const suspension = suspensionNow(i);
      return suspension ? suspensionEnd(suspension.until) : '';
    },
  },
];

/** How often the screen takes a fresh look besides the live stream (env AGORA_QUEUE_REFRESH_MS). */
const REFRESH_MS = 5000;

export function registerQueueCommand(program: Command): void {
  // The keys before the examples: every help screen ends with its examples.
  examples(
    paginationOptions(
      program
        .command('queue')
        .description('moderate: the waiting access requests, invites and open reports of the pages you administer, live on a terminal')
        .option('-y, --yes', 'refuse, remove, suspend (with the default reason) and dismiss without asking'),
    ).addHelpText(
      'after',
      '\nKeys (on a terminal):\n' +
        '  ↑↓ or j/k  move                  ⏎  details\n' +
        '  a  accept a request or invite    r  refuse it\n' +
        '  d  remove the reported content   s  suspend the author or user (Admins)\n' +
        '  x  dismiss the reports           q  quit, after the actions under way\n' +
        '  PgUp/PgDn  a screen up, down     Home/End or g/G  first, last\n' +
        '  Ctrl-C  stop at once',
    ),
    'agora queue',
    'agora queue --all | cut -f1,2',
    'agora queue --json',
  )
    .action(
    withContext<PageOptions & { yes?: boolean }>(async (ctx, o) => {
      const { client, out } = ctx;
      if (out.json || !process.stdout.isTTY || !process.stdin.isTTY)
        return showList<ModerationItem>(ctx, '/moderation_queue', {}, QUEUE_COLUMNS, o);
      const [{ seg }, { openEventStream }, { runQueueScreen }, { holdLine }] = await Promise.all([
        import('../../client/api-client.js'),
        import('../../client/event-stream.js'),
        import('../queue/screen.js'),
        import('../spinner.js'),
      ]);
      const me = await client.get<{ id: string; is_admin?: boolean }>('/me');
      const leaving: string[] = [];
      const path = (item: ModerationItem, verb: string) =>
        `/${item.kind === 'invite' ? 'invites' : item.kind === 'report' ? 'reports' : 'page_access_requests'}/${seg(item.id)}/${verb}`;
      // The screen is the whole terminal: a slow call's spinner (a server gone away) would draw over it.
      const release = holdLine(process.stderr);
      await runQueueScreen(
        {
          async load() {
            const result = await client.get<ListResult<ModerationItem>>('/moderation_queue', { per_page: 100 });
            return { items: result.items, total: result.total_items };
          },
          accept: async (item) => void (await client.put(path(item, 'accept'))),
          refuse: async (item) => void (await client.put(path(item, 'refuse'))),
          remove: async (item) => void (await client.put(path(item, 'resolve'), { action: 'remove' })),
          suspend: async (item, reason) => void (await client.put(path(item, 'resolve'), { action: 'suspend', reason })),
          dismiss: async (item) => void (await client.put(path(item, 'dismiss'))),
          async reportsOf(item) {
            const { items: reports } = await client.get<ListResult<Report>>('/reports', {
              target_type: item.target.type,
              target_id: item.target.id,
              state: 'open',
              per_page: 100,
            });
            const ids = [...new Set(reports.map((r) => r.user_id))];
            const users = ids.length ? (await client.get<ListResult<User>>('/users', { ids: ids.join(','), per_page: 100 })).items : [];
            const nickname = new Map(users.map((u) => [u.id, u.nickname]));
            return reports.map((r) => ({ id: r.id, reporter: nickname.get(r.user_id) ?? r.user_id, reason: r.reason, comment: r.comment, created_at: r.created_at }));
          },
          subscribe(changed, live) {
            const stream = openEventStream(
              client,
              `/users/${seg(me.id)}/notifications/stream`,
              {
                onOpen: () => {
                  live(true);
                  changed();
                },
                onEvent: () => changed(),
                onError: () => live(false),
              },
            );
            return () => stream.close();
          },
        },
        {
          yes: !!o.yes,
          // Only Admins suspend: `s` is offered to them alone (a server older than `is_admin` refuses the first try).
          maySuspend: me.is_admin !== false,
          me: me.id,
          color: out.color,
          refreshMs: Number(process.env.AGORA_QUEUE_REFRESH_MS) || REFRESH_MS,
          describeError: (error) => {
            const e = error as { name?: string; code?: string; message?: string };
            // Someone else settled it first: the queue is simply out of date. Other refusals (the user is suspended)
            // are said as the API says them.
            if (e.name === 'ApiError' && SETTLED_ELSEWHERE.has(e.code ?? '')) return `already handled elsewhere: ${e.message}`;
            // Their other request or invite to the page was accepted first: this one is left to refuse.
            if (e.name === 'ApiError' && e.code === 'already_member') return `${e.message}; r refuses`;
            return String(e.message ?? error);
          },
          onLeaving: (line) => leaving.push(line),
        },
      );
      release();
      // What the actions still under way at `q` came to, once the screen is gone (its messages went with it).
      for (const line of leaving) out.note(line);
    }),
  );
}
