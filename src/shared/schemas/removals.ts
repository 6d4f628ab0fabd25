import { z } from 'zod';
import { Id, listOf, optionalText, PaginationQuery, queryEnum, queryText, Timestamp } from './common.js';
import { EXAMPLE_ID } from './examples.js';

/** Why content was removed, kept with it (Admins read it). */
export const MAX_REMOVAL_REASON = 1000;

/** The reason of a removal, in the query (`?reason=`) or the body: either works. */
export const RemoveContentQuery = z.object({ reason: optionalText(MAX_REMOVAL_REASON) });
export const RemoveContentInput = z
  .object({ reason: optionalText(MAX_REMOVAL_REASON) })
  .meta({ id: 'RemoveContentInput', examples: [{ reason: 'Spam: links to a shop' }] });
export type RemoveContentInput = z.output<typeof RemoveContentInput>;

export const REMOVED_TYPES = ['Status', 'Comment'] as const;

/** Removed content as Admins list it (`GET /removed_content`): the status or comment, who removed it, when and why. */
export const RemovedContentSchema = z
  .object({
    id: Id.describe("The status's or comment's id"),
    target_type: z.enum(REMOVED_TYPES),
    user_id: Id.describe('Its author'),
    status_id: Id.nullable().describe("A comment's status"),
    page_id: Id.nullable(),
    event_id: Id.nullable(),
    content: z.string(),
    created_at: Timestamp,
    removed_at: Timestamp,
    removed_by: Id,
    removal_reason: z.string().nullable(),
  })
  .meta({
    id: 'RemovedContent',
    examples: [
      {
        id: EXAMPLE_ID.status,
        target_type: 'Status',
        user_id: EXAMPLE_ID.grace,
        status_id: null,
        page_id: EXAMPLE_ID.page,
        event_id: null,
        content: 'Cheap seeds at example.com',
        created_at: '2026-11-20T10:00:00.000Z',
        removed_at: '2026-11-20T11:00:00.000Z',
        removed_by: EXAMPLE_ID.ada,
        removal_reason: 'Spam: links to a shop',
      },
    ],
  });
export type RemovedContent = z.infer<typeof RemovedContentSchema>;
export const RemovedContentListSchema = listOf(RemovedContentSchema);

export const ListRemovedContentQuery = PaginationQuery.extend({
  target_type: queryEnum('target_type', REMOVED_TYPES).describe('Only statuses, or only comments'),
  user_id: queryText.describe('Content by this author'),
  removed_by: queryText.describe('Content this user removed'),
});
export type ListRemovedContentQuery = z.output<typeof ListRemovedContentQuery>;
