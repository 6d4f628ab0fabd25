import { InvalidArgumentError, type Command } from 'commander';
import type { Attendance, AttendanceResult, Event } from '../../shared/schemas/events.js';
import { enumOption, examples, paginationOptions, showList, validateBody, withContext, type PageOptions } from '../command-kit.js';
import { UsageError } from '../errors.js';
import type { Column, RecordView } from '../output.js';

const ANSWERS = ['yes', 'no', 'maybe'];

// Which event, when, and how many go, readable at 80 columns: the end, the slug (the name again, as typed) and the
// tickets, last, are left out (and said so) before the name is cut below `room`.
export const EVENT_COLUMNS: Column<Event>[] = [
  { header: 'id', value: (e) => e.id, id: true },
  { header: 'name', value: (e) => e.name, room: 24 },
  { header: 'start', value: (e) => e.start_date },
  { header: 'attendees', value: (e) => e.attendees_count },
  { header: 'places left', value: (e) => (e.places_left === null ? 'unlimited' : e.places_left) },
  { header: 'end', value: (e) => e.end_date },
  { header: 'slug', value: (e) => e.slug },
  { header: 'tickets', value: (e) => e.tickets.map((t) => `${t.name} ${t.price} ${t.currency}`).join(', ') },
];

const tickets = (list: Event['tickets']) => list.map((t) => `${t.name} ${t.price} ${t.currency}`).join(', ');

/** One view of an event, from create, get and rsvp alike. */
export const EVENT_VIEW: RecordView<Event> = {
  names: { user_id: ['owner', 'user'], page_id: ['page', 'page'] },
  format: { tickets: tickets as (value: never) => unknown, places_left: ((n: number | null) => (n === null ? 'unlimited' : n)) as (value: never) => unknown },
};

const ATTENDEE_COLUMNS: Column<Attendance>[] = [
  { header: 'user', value: (a) => a.user_id, id: true },
  { header: 'nickname', value: (a) => a.user.nickname },
  { header: 'answer', value: (a) => a.answer },
  { header: 'since', value: (a) => a.updated_at },
];

/**
 * A date and time as people type it, `YYYY-MM-DD HH:MM[:SS]` (also with a `T`) in the local time zone, as UTC.
 * Anything else is left as typed for `utcWhen`.
 */
export function parseWhen(value: string): string {
  const local = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value.trim());
  if (!local) return value.trim();
  const [y, mo, d, h, mi, s] = local.slice(1).map((part) => Number(part ?? 0)) as number[];
  const date = new Date(y!, mo! - 1, d!, h!, mi!, s!);
  if (date.getMonth() !== mo! - 1 || date.getDate() !== d!) throw new InvalidArgumentError(`${value} is not a real date`);
  return date.toISOString();
}

/**
 * `--start` or `--end` as the API takes it, a time with its offset: a local time (`parseWhen`), or what
 * `users suspend --until` takes, read by the same shared schema: an ISO 8601 date (its midnight UTC) or a time
 * with its offset. Throws saying why not.
 */
async function utcWhen(value: string): Promise<string> {
  const { IsoDateOrTime } = await import('../../shared/schemas/common.js');
  // `t` and `z` are read as `T` and `Z`, as the API's event schema reads them.
  const parsed = IsoDateOrTime.safeParse(parseWhen(value).toUpperCase());
  if (parsed.success) return parsed.data;
  const message = parsed.error.issues[0]?.message ?? 'is not a date';
  // A text of no date at all is told the forms the CLI takes; a date of no real day, which one.
  throw new InvalidArgumentError(message.includes('ISO 8601') ? `${message}, or "YYYY-MM-DD HH:MM" in the local time zone` : `${value} ${message}`);
}

/** `--ticket "Standard:12.50:EUR"`, repeatable; the name may itself hold colons. */
export function parseTicket(value: string, previous: { name: string; price: string; currency: string }[] = []) {
  const parts = value.split(':');
  if (parts.length < 3) throw new InvalidArgumentError('must be NAME:PRICE:CURRENCY, e.g. "Standard:12.50:EUR"');
  const currency = parts.pop()!.trim();
  const price = parts.pop()!.trim();
  return [...previous, { name: parts.join(':').trim(), price, currency }];
}

const placesOption = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a whole number of at least 1');
  return Number(value);
};

interface CreateOptions {
  name?: string;
  start?: string;
  end?: string;
  description?: string;
  pageId?: string;
  places?: number;
  ticket?: { name: string; price: string; currency: string }[];
  user?: string;
}

export function registerEventCommands(program: Command): void {
  const events = program.command('events').description('gathering events: create, list, answer');

  examples(
    events
      .command('create')
      .description('create a gathering event (missing name and dates are asked for on a terminal)')
      .option('--name <name>', 'event name (required)')
      .option('--start <when>', 'start: ISO 8601 (a date is its midnight UTC), or "YYYY-MM-DD HH:MM" local time (required)')
      .option('--end <when>', 'end: ISO 8601 (a date is its midnight UTC), or "YYYY-MM-DD HH:MM" local time (required)')
      .option('--description <text>', 'description')
      .option('--page-id <page>', 'the page the event belongs to (id or slug)')
      .option('--places <n>', 'places available (default: unlimited)', placesOption)
      .option('--ticket <name:price:currency>', 'a ticket, e.g. "Standard:12.50:EUR" (repeatable)', parseTicket)
      .option('--user <user>', 'the creator: id or nickname (default: you)'),
    'agora events create --name "Seed swap" --start "2026-12-05 10:00" --end "2026-12-05 13:00" --page-id garden-club --places 30',
  )
    // The dates given, checked before credentials, questions or any request (exit 2), as the times the API takes.
    .hook('preAction', async (command) => {
      for (const flag of ['start', 'end']) {
        const value = command.getOptionValue(flag) as string | undefined;
        if (value !== undefined)
          command.setOptionValue(flag, await utcWhen(value).catch((error: Error) => Promise.reject(new UsageError(`--${flag} ${error.message}`))));
      }
    })
    .action(
      withContext<CreateOptions>(async ({ client, out, names }, o) => {
        const [{ CreateEventInput }, { askMissing, fieldCheck }] = await Promise.all([
          import('../../shared/schemas/events.js'),
          import('../prompts.js'),
        ]);
        const problem = (value: string) => utcWhen(value).then(() => undefined, (error: Error) => error.message);
        const values = await askMissing(
          { name: o.name, start: o.start, end: o.end },
          {
            name: { flag: '--name', message: 'Event name', check: fieldCheck(CreateEventInput.shape.name) },
            start: { flag: '--start', message: 'Starts (YYYY-MM-DD HH:MM)', parse: parseWhen, check: problem },
            end: {
              flag: '--end',
              message: 'Ends (YYYY-MM-DD HH:MM)',
              parse: parseWhen,
              // The shared schema's own rule, as the answer is given: an end before the start is asked again.
              check: async (value, so) => {
                const wrong = await problem(value);
                if (wrong) return wrong;
                const draft = { name: so.name, user_id: 'me', start_date: await utcWhen(String(so.start)), end_date: await utcWhen(value) };
                const issue = CreateEventInput.safeParse(draft).error?.issues.find((i) => i.path[0] === 'end_date');
                return issue ? `the end ${issue.message.replace('start_date', 'the start')}` : undefined;
              },
            },
          },
        );
        const body = {
          name: values.name,
          user_id: o.user ?? 'me',
          // An answer given at the prompt, as the API takes it.
          start_date: values.start && (await utcWhen(values.start)),
          end_date: values.end && (await utcWhen(values.end)),
          description: o.description,
          page_id: o.pageId,
          places_limit: o.places,
          tickets: o.ticket,
        };
        await validateBody(CreateEventInput, body, {
          user_id: '--user',
          start_date: '--start',
          end_date: '--end',
          page_id: '--page-id',
          places_limit: '--places',
          tickets: '--ticket',
        });
        body.user_id = o.user ? await names.resolve('user', o.user) : (await client.get<{ id: string }>('/me')).id;
        if (o.pageId) body.page_id = await names.resolve('page', o.pageId);
        await out.record(await client.post<Event>('/events', body), EVENT_VIEW);
      }),
    );

  examples(
    paginationOptions(
      events
        .command('list')
        .description('list events, soonest first')
        .option('--owner <user>', 'only events created by this user (id or nickname)')
        .option('--date <YYYY-MM-DD>', 'only events running on this day (UTC)')
        .option('--current', 'only events not yet ended')
        .option('--page-id <page>', 'only events of this page (id or slug)')
        .option('--slug <slug>', 'only the event with exactly this slug'),
    ),
    'agora events list --current',
    'agora events list --page-id garden-club --date 2026-12-05',
  ).action(
    withContext<PageOptions & { owner?: string; date?: string; current?: boolean; pageId?: string; slug?: string }>(async (ctx, o) => {
      // The day with the API's own schema, before any request (exit 2, the flag named).
      const { ListEventsQuery } = await import('../../shared/schemas/events.js');
      await validateBody(ListEventsQuery.pick({ date: true }), { date: o.date });
      const query = {
        owner: o.owner && (await ctx.names.resolve('user', o.owner)),
        date: o.date,
        event_date: o.current ? 'current_and_coming' : undefined,
        page_id: o.pageId && (await ctx.names.resolve('page', o.pageId)),
        slug: o.slug,
      };
      await showList(ctx, '/events', query, EVENT_COLUMNS, o);
    }),
  );

  examples(events.command('get').description('show one event').argument('<event>', 'event id or slug'), 'agora events get seed-swap').action(
    withContext(async ({ client, out, names }, _o, [ref]) => {
      const { seg } = await import('../../client/api-client.js');
      const id = await names.resolve('event', ref!);
      await out.record(await client.get<Event>(`/events/${seg(id)}`), EVENT_VIEW);
    }),
  );

  examples(
    events
      .command('rsvp')
      .description('answer an event: yes takes a place, no or maybe frees it (a menu on a terminal when --answer is missing)')
      .argument('<event>', 'event id or slug')
      .addOption(enumOption('--answer <answer>', 'your answer (required)', ANSWERS))
      .option('--user <user>', 'who answers: id or nickname (default: you)'),
    'agora events rsvp seed-swap --answer yes',
  ).action(
      withContext<{ answer?: string; user?: string }>(async ({ client, out, names }, o, [ref]) => {
        const [{ seg }, { askMissing }, { NameNotFoundError }] = await Promise.all([
          import('../../client/api-client.js'),
          import('../prompts.js'),
          import('../names.js'),
        ]);
        const { answer } = await askMissing({ answer: o.answer }, { answer: { flag: '--answer', message: 'Your answer', choices: ANSWERS } });
        const user_id = o.user ? await names.resolve('user', o.user) : (await client.get<{ id: string }>('/me')).id;
        const id = await names.resolve('event', ref!).catch((error: unknown) => {
          // The API takes back an answer to an event of a secret page one left, but lists it to them no more.
          if (error instanceof NameNotFoundError && answer === 'no')
            throw new NameNotFoundError(`${error.message} (an event of a secret page you left is answered no by its whole id only)`);
          throw error;
        });
        const result = await client.put<AttendanceResult>(`/events/${seg(id)}/attendance`, { user_id, answer });
        await out.record(result, {
          format: {
            event: ((e: Event | null) =>
              e === null
                ? 'hidden from you (a secret page you are not in)'
                : `${e.name} (${e.attendees_count} going, ${e.places_left === null ? 'places unlimited' : `${e.places_left} ${e.places_left === 1 ? 'place' : 'places'} left`})`) as (
              value: never,
            ) => unknown,
          },
        });
      }),
    );

  examples(
    paginationOptions(
      events
        .command('attendees')
        .description('who answered an event, and what')
        .argument('<event>', 'event id or slug')
        .addOption(enumOption('--answer <answer>', 'only this answer', ANSWERS)),
    ),
    'agora events attendees seed-swap --answer yes --all',
  ).action(
    withContext<PageOptions & { answer?: string }>(async (ctx, o, [ref]) => {
      const { seg } = await import('../../client/api-client.js');
      const id = await ctx.names.resolve('event', ref!);
      await showList(ctx, `/events/${seg(id)}/attendees`, { answer: o.answer }, ATTENDEE_COLUMNS, o);
    }),
  );
}
