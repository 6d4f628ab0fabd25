import { REPORT_ACTIONS, REPORT_REASONS, REPORT_STATES, REPORT_TARGET_TYPES } from '../report-kinds.js';
import { z } from 'zod';
import { Id, idInput, listOf, optionalText, PaginationQuery, queryEnum, queryText, shows, Timestamp, typeError, VISIBLE_RULE } from './common.js';
import { SuspendUserInput } from './suspensions.js';
import { UserSchema } from './users.js';
import { EXAMPLE_ID, exampleOtherUser } from './examples.js';

const reportExample = {
  user_id: EXAMPLE_ID.grace,
  target_type: 'Status',
  target_id: EXAMPLE_ID.status,
  reason: 'spam',
  comment: 'Links to a shop',
};

export { REPORT_ACTIONS, REPORT_REASONS, REPORT_STATES, REPORT_TARGET_TYPES };
export const MAX_REPORT_COMMENT = 1000;
/** A reported status's or comment's excerpt, kept as it was reported. */
export const REPORT_EXCERPT = 280;

export const CreateReportInput = z.object({
  user_id: idInput.describe('The reporter: the caller, unless an Admin acts for someone'),
  target_type: z.enum(REPORT_TARGET_TYPES, typeError(`one of: ${REPORT_TARGET_TYPES.join(', ')}`)),
  target_id: idInput,
  reason: z.enum(REPORT_REASONS, typeError(`one of: ${REPORT_REASONS.join(', ')}`)),
  comment: optionalText(MAX_REPORT_COMMENT),
}).meta({ id: 'CreateReportInput', examples: [reportExample] });
export type CreateReportInput = z.output<typeof CreateReportInput>;

export const ReportTargetSchema = z.object({
  type: z.enum(REPORT_TARGET_TYPES),
  id: Id,
  excerpt: z.string().nullable().describe('For a status or a comment: at most 280 characters of it, as reported'),
  user: UserSchema.nullable().describe("The user reported, or the content's author (null when no longer there)"),
});

export const ReportSchema = z.object({
  id: Id,
  user_id: Id.describe('The reporter'),
  target_type: z.enum(REPORT_TARGET_TYPES),
  target_id: Id,
  reason: z.enum(REPORT_REASONS),
  comment: z.string().nullable(),
  state: z.enum(REPORT_STATES),
  resolution: z.enum(['removed', 'suspended', 'none']).nullable(),
  resolved_by: Id.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
  target: ReportTargetSchema,
}).meta({
  id: 'Report',
  examples: [
    {
      id: EXAMPLE_ID.notification,
      ...reportExample,
      state: 'open',
      resolution: null,
      resolved_by: null,
      created_at: '2026-11-20T10:00:00.000Z',
      updated_at: '2026-11-20T10:00:00.000Z',
      target: { type: 'Status', id: EXAMPLE_ID.status, excerpt: 'Cheap seeds at example.com', user: exampleOtherUser },
    },
  ],
});
export type Report = z.infer<typeof ReportSchema>;
export const ReportListSchema = listOf(ReportSchema);

export const ListReportsQuery = PaginationQuery.extend({
  state: queryEnum('state', REPORT_STATES),
  target_type: queryEnum('target_type', REPORT_TARGET_TYPES),
  target_id: queryText,
  user_id: queryText,
});
export type ListReportsQuery = z.output<typeof ListReportsQuery>;

export const ResolveReportInput = z
  .object({
    action: z.enum(REPORT_ACTIONS, typeError(`one of: ${REPORT_ACTIONS.join(', ')}`)),
    reason: optionalText(1000).describe('Required for suspend (the suspension reason); kept as the removal reason for remove'),
    until: SuspendUserInput.shape.until,
  })
  .refine((r) => r.action !== 'suspend' || !!r.reason, { message: 'is required to suspend', path: ['reason'] })
  // The suspension's reason, held to its rule as PUT /users/{id}/suspension holds it (text()).
  .refine((r) => r.action !== 'suspend' || !r.reason || shows(r.reason), { message: VISIBLE_RULE, path: ['reason'] })
  .refine((r) => r.action === 'suspend' || r.until === undefined, { message: 'applies only to suspend', path: ['until'] })
  .meta({ id: 'ResolveReportInput', examples: [{ action: 'remove', reason: 'Spam' }] });
export type ResolveReportInput = z.output<typeof ResolveReportInput>;
