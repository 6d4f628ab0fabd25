import { z } from 'zod';
import { documentedAs, Id, idInput, listOf, PaginationQuery, queryText, text, Timestamp } from './common.js';
import { EXAMPLE_ID, exampleComment, exampleLike, exampleStatus } from './examples.js';
import { UserSchema } from './users.js';

export const MAX_CONTENT = 5000;

/** An optional id: an empty form field counts as absent. */
const optionalId = z.preprocess((v) => (v === null || v === '' ? undefined : v), idInput.optional());

export const CreateStatusInput = z
  .object({
    user_id: idInput,
    content: text(MAX_CONTENT),
    page_id: optionalId,
    event_id: optionalId,
  })
  // Worded for the API's field and the CLI's flag alike (`--event-id must not be given with a page: …`).
  .refine((s) => !(s.page_id && s.event_id), {
    message: 'must not be given with a page: a status is in a page or in an event, not both',
    path: ['event_id'],
  })
  .meta({
    id: 'CreateStatusInput',
    description: 'On your profile; in a page (page_id) or in an event\'s conversation (event_id), not both',
    examples: [{ user_id: EXAMPLE_ID.grace, content: 'Who brings the clocks?', page_id: EXAMPLE_ID.page }],
  });
export type CreateStatusInput = z.infer<typeof CreateStatusInput>;

export const StatusSchema = z.object({
  id: Id,
  user_id: Id.describe('The author'),
  user: UserSchema,
  content: z.string(),
  page_id: Id.nullable().describe('The page it was posted in, if any'),
  event_id: Id.nullable().describe('The event whose conversation it belongs to, if any'),
  comments_count: z.number().int(),
  likes_count: z.number().int(),
  created_at: Timestamp,
  updated_at: Timestamp,
  /** Only on removed content, which only Admins read. */
  removed_at: Timestamp.optional().describe('When it was removed (removed content: Admins only)'),
  removed_by: Id.optional().describe('Who removed it'),
  removal_reason: z.string().nullable().optional().describe('Why, as given'),
}).meta({ id: 'Status', examples: [exampleStatus] });
export type Status = z.infer<typeof StatusSchema>;
export const StatusListSchema = listOf(StatusSchema);
export const ListStatusesQuery = PaginationQuery.extend({
  user_id: queryText.describe('Statuses by this user'),
  page_id: queryText.describe('Statuses posted in this page'),
  event_id: queryText.describe("Statuses in this event's conversation"),
});
export type ListStatusesQuery = z.output<typeof ListStatusesQuery>;

export const CreateCommentInput = z.object({
  user_id: idInput,
  status_id: idInput,
  content: text(MAX_CONTENT),
}).meta({ id: 'CreateCommentInput', examples: [{ user_id: EXAMPLE_ID.ada, status_id: EXAMPLE_ID.status, content: 'I do' }] });
export type CreateCommentInput = z.infer<typeof CreateCommentInput>;

export const CommentSchema = z.object({
  id: Id,
  status_id: Id,
  user_id: Id.describe('The author'),
  user: UserSchema,
  content: z.string(),
  likes_count: z.number().int(),
  created_at: Timestamp,
  updated_at: Timestamp,
  /** Only on removed content, which only Admins read. */
  removed_at: Timestamp.optional().describe('When it was removed (removed content: Admins only)'),
  removed_by: Id.optional().describe('Who removed it'),
  removal_reason: z.string().nullable().optional().describe('Why, as given'),
}).meta({ id: 'Comment', examples: [exampleComment] });
export type Comment = z.infer<typeof CommentSchema>;
export const CommentListSchema = listOf(CommentSchema);

export const CreateLikeInput = z
  .object({ user_id: idInput, status_id: optionalId, comment_id: optionalId })
  .refine((l) => !!l.status_id !== !!l.comment_id, {
    message: 'give exactly one of status_id and comment_id',
    path: ['status_id'],
  })
  .meta({
    id: 'CreateLikeInput',
    description: 'A like of a status (status_id) or of a comment (comment_id): exactly one of them',
    examples: [{ user_id: EXAMPLE_ID.grace, comment_id: EXAMPLE_ID.comment }],
  });
// "Exactly one of" is a rule across fields, refused with its own message: the document says it as a oneOf.
documentedAs.set(
  CreateLikeInput,
  z.xor([
    z.strictObject({ user_id: idInput, status_id: idInput }).meta({ id: 'LikeStatusInput' }),
    z.strictObject({ user_id: idInput, comment_id: idInput }).meta({ id: 'LikeCommentInput' }),
  ]),
);
export type CreateLikeInput = z.infer<typeof CreateLikeInput>;

export const LikeSchema = z.object({
  id: Id,
  user_id: Id.describe('Who liked'),
  user: UserSchema,
  status_id: Id.nullable(),
  comment_id: Id.nullable(),
  created_at: Timestamp,
}).meta({ id: 'Like', examples: [exampleLike] });
export type Like = z.infer<typeof LikeSchema>;
export const LikeListSchema = listOf(LikeSchema);
export const ListLikesQuery = PaginationQuery.extend({ user_id: queryText.describe("This user's like (one at most)") });
export type ListLikesQuery = z.output<typeof ListLikesQuery>;

export const StreamQuery = PaginationQuery;
export const ListCommentsQuery = PaginationQuery;

export const StatusParams = z.object({ status_id: z.string() });
export const CommentParams = z.object({ comment_id: z.string() });
export const LikeParams = z.object({ like_id: z.string() });
