import { z } from 'zod';
import { documentedAs, FOUR_DIGIT_YEAR, fourDigitUtcYear, Id, idInput, idsQuery, listOf, optionalText, PaginationQuery, queryEnum, queryText, sameCalendarDay, text, Timestamp, typeError } from './common.js';
import { EXAMPLE_ID, exampleAttendance, exampleEvent, exampleTicket } from './examples.js';
import { UserSchema } from './users.js';

export const ANSWERS = ['yes', 'no', 'maybe'] as const;
export type Answer = (typeof ANSWERS)[number];
export const MAX_TICKETS = 20;

/** ISO 8601 date and time with a UTC offset (`Z` or `±hh:mm`), normalised to UTC with milliseconds. */
export const isoDateTime = z
  .string(typeError('an ISO 8601 date and time'))
  .trim()
  .regex(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i,
    { message: 'must be an ISO 8601 date and time with a UTC offset, e.g. 2026-12-01T18:00:00Z', abort: true },
  )
  .refine((v) => !Number.isNaN(Date.parse(v)) && sameCalendarDay(v), { message: 'is not a real date and time', abort: true })
  .refine(fourDigitUtcYear, FOUR_DIGIT_YEAR)
  .transform((v) => new Date(v).toISOString())
  .meta({ format: 'date-time', description: 'ISO 8601 date and time with a UTC offset' });

const PRICE = /^\d{1,10}(\.\d{1,2})?$/;

/** A price as a decimal string ("12.50"), never a float: at most two decimals, up to 1,000,000,000. */
export const Price = z
  .union([z.string(), z.number()], typeError('a decimal string such as "12.50"'))
  .refine((v) => typeof v === 'string', 'must be a decimal string such as "12.50", not a number')
  .transform((v) => String(v).trim())
  .pipe(z.string().regex(PRICE, 'must be a decimal string with at most two decimals, e.g. "12.50"'));
// A number is refused (with a message saying so): the document shows the string alone.
documentedAs.set(Price, z.string().regex(PRICE).describe('A decimal string with at most two decimals, never a number'));

export const TicketSchema = z.object({
  name: text(100),
  price: Price,
  currency: z
    .string(typeError('a currency code'))
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 currency code, e.g. EUR'),
}).meta({ id: 'TicketInput', examples: [exampleTicket] });
export type Ticket = z.infer<typeof TicketSchema>;

/** Tickets as a JSON array, or (in forms) as a JSON string. */
const tickets = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}, z.array(TicketSchema, typeError('an array of {name, price, currency}')).max(MAX_TICKETS, `must have at most ${MAX_TICKETS} tickets`));

const placesLimit = z.preprocess(
  (v) => (v === null || v === '' ? undefined : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v),
  z
    .number(typeError('an integer'))
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(1_000_000, 'must be at most 1000000')
    .optional(),
);

export const CreateEventInput = z
  .object({
    name: text(150),
    user_id: idInput,
    start_date: isoDateTime,
    end_date: isoDateTime,
    description: optionalText(5000),
    page_id: z.preprocess((v) => (v === null || v === '' ? undefined : v), idInput.optional()),
    places_limit: placesLimit,
    tickets: tickets.optional(),
  })
  .refine((e) => e.end_date >= e.start_date, { message: 'must not be before start_date', path: ['end_date'] })
  .meta({
    id: 'CreateEventInput',
    description: 'end_date must not be before start_date',
    examples: [
      {
        name: 'Winter open',
        user_id: EXAMPLE_ID.ada,
        start_date: '2026-12-05T09:00:00Z',
        end_date: '2026-12-05T18:00:00Z',
        page_id: EXAMPLE_ID.page,
        places_limit: 32,
        tickets: [exampleTicket],
      },
    ],
  });
export type CreateEventInput = z.infer<typeof CreateEventInput>;

export const EventSchema = z.object({
  id: Id,
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  user_id: Id.describe('The creator'),
  page_id: Id.nullable(),
  start_date: Timestamp,
  end_date: Timestamp,
  places_limit: z.number().int().nullable().describe('null: unlimited'),
  places_left: z.number().int().nullable().describe('null: unlimited'),
  attendees_count: z.number().int().describe('Users who answered yes'),
  tickets: z.array(z.object({ name: z.string(), price: z.string(), currency: z.string() }).meta({ id: 'Ticket' })),
  created_at: Timestamp,
  updated_at: Timestamp,
}).meta({ id: 'Event', examples: [exampleEvent] });
export type Event = z.infer<typeof EventSchema>;
export const EventListSchema = listOf(EventSchema);

const day = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'date must be a day as YYYY-MM-DD')
  .refine((v) => sameCalendarDay(v), 'date is not a real day')
  .refine((v) => !v.startsWith('0000-'), 'date must fall within the years 0001 to 9999')
  .meta({ format: 'date', description: 'Events running that day (YYYY-MM-DD)' })
  .optional();

export const ListEventsQuery = PaginationQuery.extend({
  owner: queryText,
  date: day,
  event_date: queryEnum('event_date', ['current_and_coming'] as const),
  page_id: queryText,
  slug: queryText,
  ids: idsQuery,
});
export type ListEventsQuery = z.infer<typeof ListEventsQuery>;

export const AttendanceInput = z.object({
  user_id: idInput,
  answer: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
    z.enum(ANSWERS, typeError(`one of: ${ANSWERS.join(', ')}`)),
  ),
}).meta({ id: 'AttendanceInput', examples: [{ user_id: EXAMPLE_ID.grace, answer: 'yes' }] });
export type AttendanceInput = z.infer<typeof AttendanceInput>;

export const AttendanceSchema = z.object({
  event_id: Id,
  user_id: Id,
  user: UserSchema,
  answer: z.enum(ANSWERS),
  created_at: Timestamp,
  updated_at: Timestamp,
}).meta({ id: 'Attendance', examples: [exampleAttendance] });
export type Attendance = z.infer<typeof AttendanceSchema>;
export const AttendanceListSchema = listOf(AttendanceSchema);
export const AttendanceResultSchema = AttendanceSchema.extend({
  event: EventSchema.nullable().describe('The event as it is now; null when the caller may not read it (an answer taken back after leaving its secret page)'),
}).meta({
  id: 'AttendanceResult',
  examples: [{ ...exampleAttendance, event: exampleEvent }],
});
export type AttendanceResult = z.infer<typeof AttendanceResultSchema>;

export const ListAttendeesQuery = PaginationQuery.extend({ answer: queryEnum('answer', ANSWERS) });
export type ListAttendeesQuery = z.infer<typeof ListAttendeesQuery>;
