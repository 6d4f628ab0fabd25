import { z } from 'zod';

/** `is required` when absent, `must be <expected>` when present with the wrong type. */
export const typeError = (expected: string) => ({
  error: (issue: { input?: unknown }) =>
    issue.input === undefined || issue.input === null ? 'is required' : `must be ${expected}`,
});

/**
 * Something that shows: a name or a status of only format characters (zero-width spaces, bidirectional controls),
 * spaces, what Unicode says to draw as nothing (variation selectors, the grapheme joiner, the Hangul fillers: its
 * Default_Ignorable_Code_Point) or the Braille blank reads as empty, or as someone else's name.
 */
const VISIBLE = /[^\p{Cc}\p{Cf}\p{Z}\p{Default_Ignorable_Code_Point}\u2800]/u;
/** The Hangul fillers: letters to Unicode (`\p{L}`, which a nickname may hold), blank on screen. */
export const BLANK_LETTER = /[\u115f\u1160\u3164\uffa0]/u;
export const VISIBLE_RULE = 'must contain a visible character';
/** Whether the text has something visible in it (`text()`'s rule, for a field that is text only sometimes). */
export const shows = (s: string): boolean => VISIBLE.test(s);

/** A required, trimmed, bounded string, with something visible in it. */
export const text = (max: number) =>
  z
    .string(typeError('a string'))
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((s) => s === '' || shows(s), VISIBLE_RULE);

/** An optional string; an empty form field counts as absent. */
export const optionalText = (max: number) =>
  z.preprocess(
    (v) => (v === null || v === '' ? undefined : v),
    z.string(typeError('a string')).trim().max(max, `must be at most ${max} characters`).optional(),
  );

/** Identifiers are opaque strings; inputs may send them as strings or numbers. */
export const idInput = z
  .union([z.string(), z.number()], typeError('an identifier'))
  .transform((v) => String(v).trim())
  .pipe(z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters'))
  .meta({ description: 'An identifier, as a string or a number' });

const booleanWords: Record<string, boolean> = {
  true: true,
  '1': true,
  on: true,
  yes: true,
  false: false,
  '0': false,
  off: false,
  no: false,
};

/** A boolean from JSON or from a form field ("true", "1", "on", …). */
export const formBoolean = z.preprocess(
  (v) => (typeof v === 'string' ? (booleanWords[v.trim().toLowerCase()] ?? v) : v),
  z.boolean(typeError('a boolean')),
);

/** An array from JSON, or from repeated form fields (a single field arrives as a string). */
export const formArray = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (typeof v === 'string' || typeof v === 'number' ? [v] : v), z.array(item, typeError('an array')));

/** A query parameter holding an integer. */
const queryInt = (name: string, min: number, max: number) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
    z
      .number({ error: `${name} must be an integer between ${min} and ${max}` })
      .int(`${name} must be an integer between ${min} and ${max}`)
      .min(min, `${name} must be an integer between ${min} and ${max}`)
      .max(max, `${name} must be an integer between ${min} and ${max}`),
  );

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 25;

/** An opaque position in a list (the sort key of the last row answered), as the `Link: rel="next"` URL carries it. */
export const encodeCursor = (keys: readonly string[]): string => Buffer.from(JSON.stringify(keys)).toString('base64url');

const cursorQuery = z
  .string()
  .max(1000)
  .transform((value, ctx) => {
    try {
      const keys: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
      // No NUL: PostgreSQL refuses it in any text parameter (a 500 from a cursor nobody gave), and no key holds one.
      const fine = (k: unknown) => typeof k === 'string' && k.length <= 200 && !k.includes('\u0000');
      if (Array.isArray(keys) && keys.length > 0 && keys.length <= 4 && keys.every(fine)) return keys as string[];
    } catch {
      // reported below
    }
    ctx.addIssue({ code: 'custom', message: 'cursor is not one this server gave: follow the Link header as it is' });
    return z.NEVER;
  })
  .optional();

/** The path parameters of a record's own routes (`/webhooks/:id`) and of a page's lists (`/pages/:page_id/invites`). */
export const IdParams = z.object({ id: z.string() });
export const PageIdParams = z.object({ page_id: z.string() });

export const PaginationQuery = z.object({
  page: queryInt('page', 1, 1_000_000).default(1).describe('The page to answer, from 1'),
  per_page: queryInt('per_page', 1, MAX_PER_PAGE).default(DEFAULT_PER_PAGE).describe(`Records per page, at most ${MAX_PER_PAGE}`),
  cursor: cursorQuery.describe('Where the previous page ended, from the Link rel="next" URL (not with page)'),
});
export type Pagination = z.infer<typeof PaginationQuery>;

export const MAX_IDS = 100;

/**
 * `ids=a,b,c`: the records with these ids (at most 100) that the caller may see, in the order given; an id
 * unknown or hidden is left out. A client naming the owners of a page of records asks once, not once each.
 */
export const idsQuery = z
  .string()
  .max(MAX_IDS * 65, `ids must be at most ${MAX_IDS} comma-separated ids`)
  .transform((value, ctx) => {
    const ids = [...new Set(value.split(',').map((id) => id.trim()).filter(Boolean))];
    if (ids.length > 0 && ids.length <= MAX_IDS && ids.every((id) => id.length <= 64)) return ids;
    ctx.addIssue({ code: 'custom', message: `ids must be 1 to ${MAX_IDS} comma-separated ids` });
    return z.NEVER;
  })
  .optional()
  .describe(`At most ${MAX_IDS} comma-separated ids: those records, in this order (no other filter, no cursor)`);

/** An exact-match filter taken from the query string. */
export const queryText = z.string().trim().min(1).max(255).optional();

export const queryEnum = <const T extends readonly [string, ...string[]]>(name: string, values: T) =>
  z.enum(values, { error: `${name} must be one of: ${values.join(', ')}` }).optional();

export const Timestamp = z.string().meta({ description: 'ISO 8601 timestamp with UTC offset', format: 'date-time' });
export const Id = z.string().describe('Opaque identifier (32 lowercase hex characters)');

/**
 * A list answer: named after its records' schema (`User` → `UserList`) in the OpenAPI document, its example
 * made of theirs.
 */
export const listOf = <T extends z.ZodType>(item: T) => {
  const meta = z.globalRegistry.get(item);
  const example = (meta?.examples as unknown[] | undefined)?.[0];
  return z.object({ items: z.array(item), total_items: z.number().int().describe('How many records the whole list holds') }).meta({
    ...(meta?.id ? { id: `${meta.id}List`, description: `A page of ${meta.id} records, and how many the whole list holds` } : {}),
    ...(example ? { examples: [{ items: [example], total_items: 1 }] } : {}),
  });
};

/**
 * The schema the OpenAPI document shows in place of one whose rules JSON Schema cannot see (a rule across
 * fields, a value refused with a better message than a type error): it accepts what the server accepts.
 */
export const documentedAs = new WeakMap<z.ZodType, z.ZodType>();

/** The schema itself, shown in the document as `shown`. */
export const documented = <T extends z.ZodType>(schema: T, shown: z.ZodType): T => {
  documentedAs.set(schema, shown);
  return schema;
};

/**
 * Where the next page of a list starts, sent as the `Link` header (not serialised: a symbol key): a cursor's sort key,
 * or the next page's number for a list read by page number only (`ids=`, which takes no cursor).
 */
export const NEXT_PAGE = Symbol('next page');

export interface ListResult<T> {
  items: T[];
  total_items: number;
  [NEXT_PAGE]?: string[] | number;
}

/** A list answer from a page of rows: its records, its total, and where the next page starts. */
export const listResult = <T>(items: T[], listed: { total: number; next?: string[] }): ListResult<T> => ({
  items,
  total_items: listed.total,
  [NEXT_PAGE]: listed.next,
});

/**
 * A time whose UTC form keeps a four-digit year: an offset can carry 9999-12-31T23:00-14:00 into the year 10000,
 * written `+010000-…`, and stored times are compared as text (a suspension's end, an event's dates). Nor the year
 * 0000, which PostgreSQL's timestamps lack (1 BC is followed by AD 1): storing it failed with a 500.
 */
export const FOUR_DIGIT_YEAR = 'must fall within the years 0001 to 9999 in UTC';
export function fourDigitUtcYear(value: string): boolean {
  const year = new Date(value).getUTCFullYear();
  return year >= 1 && year <= 9999;
}

/** Date.parse rolls 2026-02-30 over to March; a date whose day does not exist is refused instead. */
export function sameCalendarDay(value: string): boolean {
  const [y, m, d] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const check = new Date(0);
  check.setUTCFullYear(y, m - 1, d); // not Date.UTC, which reads the years 0–99 as 1900–1999
  return check.getUTCFullYear() === y && check.getUTCMonth() === m - 1 && check.getUTCDate() === d;
}

/**
 * An ISO 8601 date (its midnight UTC) or a time with its offset, normalised to UTC: a suspension's end, and the
 * dates the CLI takes for an event's start and end (sent as the time the API's event schema requires).
 */
export const IsoDateOrTime = z
  .string()
  .trim()
  // `abort`: a text that is no date at all is told so once, not also that it is no real date.
  .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/, {
    message: 'must be an ISO 8601 date (2026-12-31: its midnight UTC) or a time with its offset (2026-12-31T18:00:00Z)',
    abort: true,
  })
  .refine((v) => !Number.isNaN(Date.parse(v)) && sameCalendarDay(v), { message: 'is not a real date', abort: true })
  .refine(fourDigitUtcYear, FOUR_DIGIT_YEAR)
  .transform((v) => new Date(v).toISOString());
