import { z } from 'zod';
import { Id, listOf, PaginationQuery, Timestamp } from './common.js';
import { exampleInvite, examplePage } from './examples.js';
import { PageSchema } from './pages.js';
import { UserSchema } from './users.js';

export const MODERATION_KINDS = ['page_access_request', 'invite'] as const;

export const ModerationQueueQuery = PaginationQuery;
export type ModerationQueueQuery = z.infer<typeof PaginationQuery>;

/** A waiting access request or invite of a page the caller administers; `user` asks or is invited. */
export const ModerationItemSchema = z.object({
  kind: z.enum(MODERATION_KINDS),
  id: Id,
  page: PageSchema,
  user: UserSchema,
  created_at: Timestamp,
}).meta({
  id: 'ModerationItem',
  examples: [{ kind: 'invite', id: exampleInvite.id, page: examplePage, user: exampleInvite.user_target, created_at: exampleInvite.created_at }],
});
export type ModerationItem = z.infer<typeof ModerationItemSchema>;
export const ModerationQueueSchema = listOf(ModerationItemSchema);
