import { z } from 'zod';
import { optionalText, PaginationQuery, queryText } from './common.js';

/** Why content was removed, kept with it (Admins read it). */
export const MAX_REMOVAL_REASON = 1000;

export const ListStatusesQuery = PaginationQuery.extend({
  user_id: queryText.describe('Statuses by this user'),
  page_id: queryText.describe('Statuses posted in this page'),
  event_id: queryText.describe("Statuses in this event's conversation"),
});
export type ListStatusesQuery = z.output<typeof ListStatusesQuery>;

/** The reason of a removal, in the query (`?reason=`) or the body: either works. */
export const RemoveContentQuery = z.object({ reason: optionalText(MAX_REMOVAL_REASON) });
export const RemoveContentInput = z
  .object({ reason: optionalText(MAX_REMOVAL_REASON) })
  .meta({ id: 'RemoveContentInput', examples: [{ reason: 'Spam: links to a shop' }] });
export type RemoveContentInput = z.output<typeof RemoveContentInput>;
