import { z } from 'zod';
import { exampleUser } from './examples.js';
import { BLANK_LETTER, documented, documentedAs, formBoolean, Id, idsQuery, listOf, PaginationQuery, queryEnum, queryText, shows, text, Timestamp, typeError } from './common.js';
import { SuspensionSchema } from './suspensions.js';

export const PASSWORD_RULE = 'must be at least 8 characters and contain at least one letter and one digit';

const NICKNAME_PATTERN = /^[\p{L}\p{N}_.-]+$/u;
const NICKNAME_CHARACTERS = 'letters, digits, ".", "_" and "-"';
/**
 * What the document shows of a nickname: its pattern's \p{L} (any letter) reads as a plain "p" to the many
 * validators that do not read patterns as Unicode, so the rule is said in words.
 */
const documentedNickname = z
  .string()
  .min(1)
  .max(50)
  .describe(
    `Unique, whatever the case, and unlike any other once Cyrillic or Greek letters that look Latin are read as Latin ` +
      `(409 nickname_taken); ${NICKNAME_CHARACTERS} only, and no Hangul filler (a letter that shows nothing)`,
  );

const mustBeTrue = (field: string) =>
  formBoolean.refine((v) => v === true, `must be true: the ${field} consent is required`);

export const CreateUserInput = z.object({
  first_name: text(100),
  last_name: text(100),
  nickname: documented(
    text(50)
      .regex(NICKNAME_PATTERN, `may contain only ${NICKNAME_CHARACTERS}`)
      // Letters that show nothing: `ada` with one after it would pass for `ada`, its skeleton another.
      .refine((s) => !shows(s) || !BLANK_LETTER.test(s), 'must not contain a blank letter (a Hangul filler)'),
    documentedNickname,
  ),
  email: z
    .string(typeError('a string'))
    .trim()
    .toLowerCase()
    .max(254, 'must be at most 254 characters')
    .pipe(z.email('must be a valid email address'))
    .meta({ format: 'email' }),
  password: z
    .string(typeError('a string'))
    .max(128, 'must be at most 128 characters')
    .refine((p) => p.length >= 8 && /\p{L}/u.test(p) && /\p{Nd}/u.test(p), PASSWORD_RULE)
    .meta({ description: `The password: it ${PASSWORD_RULE}`, minLength: 8 }),
  accept_conditions: mustBeTrue('conditions'),
  accept_confidentiality: mustBeTrue('confidentiality'),
}).meta({
  id: 'CreateUserInput',
  examples: [
    {
      first_name: 'Ada',
      last_name: 'Lovelace',
      nickname: 'ada',
      email: 'ada@example.org',
      password: 'engine1843',
      accept_conditions: true,
      accept_confidentiality: true,
    },
  ],
});
export type CreateUserInput = z.infer<typeof CreateUserInput>;

export const ListUsersQuery = PaginationQuery.extend({
  role: queryText,
  nickname: queryText,
  suspended: queryEnum('suspended', ['true', 'false'] as const).describe('true: only the users suspended now; false: only the others'),
  ids: idsQuery,
});
export type ListUsersQuery = z.infer<typeof ListUsersQuery>;

export const ExportUsersQuery = z.object({
  format: z.enum(['ndjson', 'csv'], { error: 'format must be ndjson or csv' }).default('ndjson'),
});

export const NicknameAvailabilityQuery = z.object({
  nickname: z
    .string({ error: 'nickname is required' })
    .trim()
    .min(1, 'nickname is required')
    .max(50, 'nickname must be at most 50 characters')
    .regex(NICKNAME_PATTERN, `nickname may contain only ${NICKNAME_CHARACTERS}`),
});
documentedAs.set(NicknameAvailabilityQuery.shape.nickname, documentedNickname);

export const TaglineSchema = z
  .object({ name: z.string(), image_url: z.string().nullable() })
  .meta({ id: 'Tagline', description: "The user's role, shown beside their name when the role says so" });

export const UserSchema = z.object({
  id: Id,
  first_name: z.string(),
  last_name: z.string(),
  nickname: z.string(),
  name: z.string(),
  fullname: z.string(),
  slug: z.string(),
  email: z.string().optional().describe('Shown to the user themself and to project administrators'),
  permission_set_id: Id,
  tagline: TaglineSchema.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
  suspension: SuspensionSchema.nullable().optional().describe('null, or the suspension in force'),
}).meta({ id: 'User', examples: [exampleUser] });
export type User = z.infer<typeof UserSchema>;
/** `GET /me`: the caller, and whether they are an Admin (what a client needs to offer Admins' acts only to them). */
export const MeSchema = UserSchema.extend({
  is_admin: z.boolean().describe("Whether the caller's role is Admins: they may suspend users, read the audit log and removed content, and act for anyone"),
}).meta({ id: 'Me', examples: [{ ...exampleUser, is_admin: false }] });
export type Me = z.infer<typeof MeSchema>;
export const UserListSchema = listOf(UserSchema);

export const NicknameAvailabilitySchema = z
  .object({ nickname: z.string(), available: z.boolean() })
  .meta({ id: 'NicknameAvailability', examples: [{ nickname: 'ada', available: false }] });

export const UserIdParams = z.object({ user_id: z.string() });

/** One line of `GET /users/export` (NDJSON), or one row of it (CSV, these columns in this order, with a header). */
export const ExportedUserSchema = z.object({
  id: Id,
  first_name: z.string(),
  last_name: z.string(),
  nickname: z.string(),
  email: z.string().nullable(),
  role: z.string().describe("The name of the user's permission set"),
  accept_conditions: z.boolean(),
  accept_confidentiality: z.boolean(),
  created_at: Timestamp,
});
export type ExportedUser = z.infer<typeof ExportedUserSchema>;

/** The columns of an export, each one `agora users import` reads back (with a password added). */
export const EXPORT_COLUMNS = Object.keys(ExportedUserSchema.shape) as (keyof ExportedUser)[];

const exampleExported: ExportedUser = {
  ...(({ id, first_name, last_name, nickname, email, created_at }) => ({ id, first_name, last_name, nickname, email, created_at }))(exampleUser),
  role: 'Members',
  accept_conditions: true,
  accept_confidentiality: true,
};

/** What `GET /users/export` answers, per format, for the OpenAPI document. */
export const EXPORT_MEDIA = {
  'application/x-ndjson': {
    description: `format=ndjson (the default): one JSON object per line, with ${EXPORT_COLUMNS.join(', ')}`,
    example: `${JSON.stringify(Object.fromEntries(EXPORT_COLUMNS.map((c) => [c, exampleExported[c]])))}\n`,
  },
  'text/csv': {
    description: `format=csv: a header line, then one row per user (RFC 4180), the columns ${EXPORT_COLUMNS.join(', ')}`,
    example: `${EXPORT_COLUMNS.join(',')}\r\n${EXPORT_COLUMNS.map((c) => String(exampleExported[c] ?? '')).join(',')}\r\n`,
  },
};
