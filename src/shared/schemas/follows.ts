import { z } from 'zod';
import { Id, idInput, listOf, PaginationQuery, queryText, Timestamp, typeError } from './common.js';
import { EXAMPLE_ID, exampleFollow } from './examples.js';
import { PageSchema } from './pages.js';
import { UserSchema } from './users.js';

export const FOLLOWABLE_TYPES = ['Page', 'User'] as const;
export type FollowableType = (typeof FOLLOWABLE_TYPES)[number];

/** "page", "PAGE" and "Page" all mean Page. */
const followableType = z.preprocess(
  (v) => (typeof v === 'string' ? (FOLLOWABLE_TYPES.find((t) => t.toLowerCase() === v.trim().toLowerCase()) ?? v) : v),
  z.enum(FOLLOWABLE_TYPES, typeError(`one of: ${FOLLOWABLE_TYPES.join(', ')}`)),
);

export const CreateFollowInput = z.object({
  followable_type: followableType,
  followable_id: idInput,
  user_id: idInput,
}).meta({ id: 'CreateFollowInput', examples: [{ followable_type: 'Page', followable_id: EXAMPLE_ID.page, user_id: EXAMPLE_ID.ada }] });
export type CreateFollowInput = z.infer<typeof CreateFollowInput>;

export const ListFollowsQuery = PaginationQuery.extend({
  followable_type: followableType.optional(),
  followable_id: queryText,
  user_id: queryText,
});
export type ListFollowsQuery = z.infer<typeof ListFollowsQuery>;

export const FollowSchema = z.object({
  id: Id,
  user_id: Id,
  followable_type: z.enum(FOLLOWABLE_TYPES),
  followable_id: Id,
  followable: z.union([PageSchema, UserSchema]).nullable().optional().describe('The page or user followed, in lists'),
  created_at: Timestamp,
}).meta({ id: 'Follow', examples: [exampleFollow] });
export type Follow = z.infer<typeof FollowSchema>;
export const FollowListSchema = listOf(FollowSchema);
