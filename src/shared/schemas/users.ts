import { z } from 'zod';
import { formBoolean, Id, idInput, idsQuery, listOf, PaginationQuery, queryText, text, Timestamp, typeError } from './common.js';
import { SuspensionSchema } from './suspensions.js';

export const PASSWORD_RULE = 'must be at least 8 characters and contain at least one letter and one digit';

const NICKNAME_PATTERN = /^[\p{L}\p{N}_.-]+$/u;
const NICKNAME_CHARACTERS = 'letters, digits, ".", "_" and "-"';

const mustBeTrue = (field: string) =>
  formBoolean.refine((v) => v === true, `must be true: the ${field} consent is required`);

export const CreateUserInput = z.object({
  first_name: text(100),
  last_name: text(100),
  nickname: text(50).regex(NICKNAME_PATTERN, `may contain only ${NICKNAME_CHARACTERS}`),
  email: z
    .string(typeError('a string'))
    .trim()
    .toLowerCase()
    .max(254, 'must be at most 254 characters')
    .pipe(z.email('must be a valid email address')),
  password: z
    .string(typeError('a string'))
    .max(128, 'must be at most 128 characters')
    .refine((p) => p.length >= 8 && /\p{L}/u.test(p) && /\p{Nd}/u.test(p), PASSWORD_RULE),
  accept_conditions: mustBeTrue('conditions'),
  accept_confidentiality: mustBeTrue('confidentiality'),
});
export type CreateUserInput = z.infer<typeof CreateUserInput>;

export const ListUsersQuery = PaginationQuery.extend({ role: queryText, nickname: queryText, ids: idsQuery });
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

export const TaglineSchema = z.object({ name: z.string(), image_url: z.string().nullable() });

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
  suspension: SuspensionSchema.nullable().optional().describe('On a single user record: null, or the suspension in force'),
});
export type User = z.infer<typeof UserSchema>;
export const UserListSchema = listOf(UserSchema);

export const NicknameAvailabilitySchema = z.object({ nickname: z.string(), available: z.boolean() });

export const UserIdParams = z.object({ user_id: z.string() });
export const SetRoleInput = z.object({ permission_set_id: idInput });
