import { z } from 'zod';
import { Id, listOf, PaginationQuery, Timestamp } from './common.js';
import { EXAMPLE_ID, exampleInvite, exampleOtherUser, examplePage, exampleUser } from './examples.js';
import { PageSchema } from './pages.js';
import { REPORT_REASONS, REPORT_TARGET_TYPES } from './reports.js';
import { UserSchema } from './users.js';

export const ModerationQueueQuery = PaginationQuery;
export type ModerationQueueQuery = z.infer<typeof PaginationQuery>;

const membershipExample = { kind: 'invite', id: exampleInvite.id, page: examplePage, user: exampleInvite.user_target, created_at: exampleInvite.created_at };
const reportExample = {
  kind: 'report',
  id: EXAMPLE_ID.notification,
  target: { type: 'Status', id: EXAMPLE_ID.status, excerpt: 'Cheap watches at example.com', user: exampleUser },
  page: examplePage,
  user: exampleOtherUser,
  reason: 'spam',
  reports: 2,
  created_at: exampleInvite.created_at,
};

/** A waiting access request or invite of a page the caller administers; `user` asks or is invited. */
export const MembershipItemSchema = z.object({
  kind: z.enum(['page_access_request', 'invite']),
  id: Id,
  page: PageSchema,
  user: UserSchema,
  created_at: Timestamp,
}).meta({
  id: 'ModerationMembershipItem',
  examples: [membershipExample],
});

/**
 * A target's open reports, as one item: the first report's id, reporter (`user`), reason and time, and how many
 * reports on the target are open. Settling it (`PUT /reports/{id}/resolve|dismiss`) settles them all.
 */
export const ReportItemSchema = z.object({
  kind: z.literal('report'),
  id: Id.describe('The first open report on the target'),
  target: z.object({
    type: z.enum(REPORT_TARGET_TYPES),
    id: Id,
    excerpt: z.string().nullable().describe('For a status or a comment: at most 280 characters of it, as reported'),
    user: UserSchema.nullable().describe("The user reported, or the content's author (null when no longer there)"),
  }),
  page: PageSchema.nullable().describe('The page the content is in (null for a user, or content in no page)'),
  user: UserSchema.describe('The first reporter'),
  reason: z.enum(REPORT_REASONS).describe("The first reporter's reason"),
  reports: z.number().int().describe('How many open reports the target has'),
  created_at: Timestamp,
}).meta({
  id: 'ModerationReportItem',
  examples: [reportExample],
});

export const ModerationItemSchema = z.discriminatedUnion('kind', [MembershipItemSchema, ReportItemSchema]).meta({
  id: 'ModerationItem',
  examples: [membershipExample, reportExample],
});
export type ModerationItem = z.infer<typeof ModerationItemSchema>;
export type MembershipItem = z.infer<typeof MembershipItemSchema>;
export type ReportItem = z.infer<typeof ReportItemSchema>;
export const ModerationQueueSchema = listOf(ModerationItemSchema);
