import { InvalidArgumentError, Option, type Command } from 'commander';
import type { ListResult } from '../../shared/schemas/common.js';
import type { Attendance, AttendanceResult, Event } from '../../shared/schemas/events.js';
import { pageQuery, paginationOptions, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column } from '../output.js';

const ANSWERS = ['yes', 'no', 'maybe'];

export const EVENT_COLUMNS: Column<Event>[] = [
  { header: 'id', value: (e) => e.id },
  { header: 'name', value: (e) => e.name },
  { header: 'slug', value: (e) => e.slug },
  { header: 'start', value: (e) => e.start_date },
  { header: 'end', value: (e) => e.end_date },
  { header: 'attendees', value: (e) => e.attendees_count },
  { header: 'places left', value: (e) => (e.places_left === null ? 'unlimited' : e.places_left) },
  { header: 'tickets', value: (e) => e.tickets.map((t) => `${t.name} ${t.price} ${t.currency}`).join(', ') },
];

const ATTENDEE_COLUMNS: Column<Attendance>[] = [
  { header: 'user', value: (a) => a.user_id },
  { header: 'nickname', value: (a) => a.user.nickname },
  { header: 'answer', value: (a) => a.answer },
  { header: 'since', value: (a) => a.updated_at },
];

/**
 * A date and time as people type it: ISO 8601 with an offset (sent as is), or `YYYY-MM-DD HH:MM[:SS]`
 * (also with a `T`) in the local time zone.
 */
export function parseWhen(value: string): string {
  const local = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value.trim());
  if (local) {
    const [y, mo, d, h, mi, s] = local.slice(1).map((part) => Number(part ?? 0)) as number[];
    const date = new Date(y!, mo! - 1, d!, h!, mi!, s!);
    if (date.getMonth() !== mo! - 1 || date.getDate() !== d!) throw new InvalidArgumentError(`${value} is not a real date`);
    return date.toISOString();
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(value.trim())) return value.trim();
  throw new InvalidArgumentError('must be ISO 8601 (2026-12-01T18:00:00Z) or "YYYY-MM-DD HH:MM" in the local time zone');
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
  name: string;
  start: string;
  end: string;
  description?: string;
  pageId?: string;
  places?: number;
  ticket?: { name: string; price: string; currency: string }[];
  user?: string;
}

export function registerEventCommands(program: Command): void {
  const events = program.command('events').description('gathering events: create, list, answer');

  events
    .command('create')
    .description('create a gathering event')
    .requiredOption('--name <name>', 'event name')
    .requiredOption('--start <when>', 'start: ISO 8601, or "YYYY-MM-DD HH:MM" local time', parseWhen)
    .requiredOption('--end <when>', 'end: ISO 8601, or "YYYY-MM-DD HH:MM" local time', parseWhen)
    .option('--description <text>', 'description')
    .option('--page-id <id>', 'the page the event belongs to')
    .option('--places <n>', 'places available (default: unlimited)', placesOption)
    .option('--ticket <name:price:currency>', 'a ticket, e.g. "Standard:12.50:EUR" (repeatable)', parseTicket)
    .option('--user <id>', 'the creator (default: you)')
    .action(
      withContext<CreateOptions>(async ({ client, out }, o) => {
        const { CreateEventInput } = await import('../../shared/schemas/events.js');
        const body = {
          name: o.name,
          user_id: o.user ?? 'me',
          start_date: o.start,
          end_date: o.end,
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
        body.user_id = o.user ?? (await client.get<{ id: string }>('/me')).id;
        await out.record(await client.post<Event>('/events', body), EVENT_COLUMNS);
      }),
    );

  paginationOptions(
    events
      .command('list')
      .description('list events, soonest first')
      .option('--owner <id>', 'only events created by this user')
      .option('--date <YYYY-MM-DD>', 'only events running on this day (UTC)')
      .option('--current', 'only events not yet ended')
      .option('--page-id <id>', 'only events of this page'),
  ).action(
    withContext<PageOptions & { owner?: string; date?: string; current?: boolean; pageId?: string }>(async ({ client, out }, o) => {
      const result = await client.get<ListResult<Event>>('/events', {
        ...pageQuery(o),
        owner: o.owner,
        date: o.date,
        event_date: o.current ? 'current_and_coming' : undefined,
        page_id: o.pageId,
      });
      await out.list(result, EVENT_COLUMNS, pageQuery(o));
    }),
  );

  events
    .command('get')
    .description('show one event')
    .argument('<id>', 'event id')
    .action(
      withContext(async ({ client, out }, _o, [id]) => {
        const { seg } = await import('../../client/api-client.js');
        await out.record(await client.get<Event>(`/events/${seg(id!)}`), EVENT_COLUMNS);
      }),
    );

  events
    .command('rsvp')
    .description('answer an event: yes takes a place, no or maybe frees it')
    .argument('<id>', 'event id')
    .addOption(new Option('--answer <answer>', 'your answer').choices(ANSWERS).makeOptionMandatory())
    .option('--user <id>', 'who answers (default: you)')
    .action(
      withContext<{ answer: string; user?: string }>(async ({ client, out }, o, [id]) => {
        const { seg } = await import('../../client/api-client.js');
        const user_id = o.user ?? (await client.get<{ id: string }>('/me')).id;
        const result = await client.put<AttendanceResult>(`/events/${seg(id!)}/attendance`, { user_id, answer: o.answer });
        await out.record(result, [
          { header: 'event', value: (r) => r.event.name },
          { header: 'user', value: (r) => r.user.nickname },
          { header: 'answer', value: (r) => r.answer },
          { header: 'attendees', value: (r) => r.event.attendees_count },
          { header: 'places left', value: (r) => (r.event.places_left === null ? 'unlimited' : r.event.places_left) },
        ]);
      }),
    );

  paginationOptions(
    events
      .command('attendees')
      .description('who answered an event, and what')
      .argument('<id>', 'event id')
      .addOption(new Option('--answer <answer>', 'only this answer').choices(ANSWERS)),
  ).action(
    withContext<PageOptions & { answer?: string }>(async ({ client, out }, o, [id]) => {
      const { seg } = await import('../../client/api-client.js');
      const result = await client.get<ListResult<Attendance>>(`/events/${seg(id!)}/attendees`, { ...pageQuery(o), answer: o.answer });
      await out.list(result, ATTENDEE_COLUMNS, pageQuery(o));
    }),
  );
}
