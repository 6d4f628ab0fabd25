import { z } from 'zod';
import { formArray, Id, idInput, listOf, PaginationQuery, queryEnum, queryText, Timestamp } from './common.js';
import { EXAMPLE_ID, exampleAccessRequest, exampleInvite } from './examples.js';
import { PageSchema } from './pages.js';
import { UserSchema } from './users.js';

export const ACCESS_REQUEST_STATES = ['waiting', 'accepted'] as const;
export const INVITE_STATES = ['waiting', 'accepted', 'refused'] as const;
export const MAX_INVITEES = 100;

export const CreateAccessRequestInput = z
  .object({ page_id: idInput, user_id: idInput })
  .meta({ id: 'CreateAccessRequestInput', examples: [{ page_id: EXAMPLE_ID.page, user_id: EXAMPLE_ID.grace }] });
export type CreateAccessRequestInput = z.infer<typeof CreateAccessRequestInput>;

export const ListAccessRequestsQuery = PaginationQuery.extend({
  user_id: queryText,
  page_id: queryText,
  state: queryEnum('state', ACCESS_REQUEST_STATES),
});
export type ListAccessRequestsQuery = z.infer<typeof ListAccessRequestsQuery>;
export const ListPageAccessRequestsQuery = ListAccessRequestsQuery.omit({ page_id: true });

export const AccessRequestSchema = z.object({
  id: Id,
  page_id: Id,
  user_id: Id,
  page: PageSchema,
  user: UserSchema,
  is_validate: z.boolean(),
  state: z.enum(ACCESS_REQUEST_STATES),
  created_at: Timestamp,
  updated_at: Timestamp,
}).meta({ id: 'PageAccessRequest', examples: [exampleAccessRequest] });
export type AccessRequest = z.infer<typeof AccessRequestSchema>;
export const AccessRequestListSchema = listOf(AccessRequestSchema);

const targetType = z.preprocess(
  (v) => (typeof v === 'string' && v.trim().toLowerCase() === 'page' ? 'Page' : v),
  z.literal('Page', { error: 'must be Page' }),
);

export const CreateInvitesInput = z.object({
  target_type: targetType,
  target_id: idInput,
  user_id: idInput,
  user_target_ids: formArray(idInput)
    .refine((ids) => ids.length > 0, 'must name at least one user')
    .refine((ids) => ids.length <= MAX_INVITEES, `must name at most ${MAX_INVITEES} users`),
}).meta({
  id: 'CreateInvitesInput',
  examples: [{ target_type: 'Page', target_id: EXAMPLE_ID.page, user_id: EXAMPLE_ID.ada, user_target_ids: [EXAMPLE_ID.grace] }],
});
export type CreateInvitesInput = z.infer<typeof CreateInvitesInput>;

export const ListInvitesQuery = PaginationQuery.extend({
  user_id: queryText,
  user_target_id: queryText,
  state: queryEnum('state', INVITE_STATES),
  target_type: z.enum(['Page'], { error: 'target_type must be Page' }).optional(),
  target_id: queryText,
});
export type ListInvitesQuery = z.infer<typeof ListInvitesQuery>;
export const ListPageInvitesQuery = ListInvitesQuery.omit({ target_type: true, target_id: true });

export const InviteSchema = z.object({
  id: Id,
  target_type: z.literal('Page'),
  target_id: Id,
  user_id: Id.describe('The user who sent the invite'),
  user_target_id: Id.describe('The invited user'),
  user: UserSchema,
  user_target: UserSchema,
  target: PageSchema,
  is_accepted: z.boolean(),
  is_validate: z.boolean().nullable().describe('null while waiting, true once accepted, false once refused'),
  state: z.enum(INVITE_STATES),
  created_at: Timestamp,
  updated_at: Timestamp,
}).meta({ id: 'Invite', examples: [exampleInvite] });
export type Invite = z.infer<typeof InviteSchema>;
export const InviteListSchema = listOf(InviteSchema);

export const InviteCreationSchema = z
  .object({
    success: z.array(InviteSchema).describe('The invites created'),
    errors: z
      .array(z.record(z.string(), z.string()))
      .describe('One object per user not invited, mapping their id to why: User already invite, User already member, User not found'),
  })
  .meta({
    id: 'InviteCreation',
    examples: [{ success: [exampleInvite], errors: [{ [EXAMPLE_ID.ada]: 'User already member' }] }],
  });
export type InviteCreation = z.infer<typeof InviteCreationSchema>;

