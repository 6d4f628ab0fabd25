import { z } from 'zod';
import { PaginationQuery } from './common.js';

/**
 * `page`/`per_page`, or `cursor` (from a `Link: rel="next"` header) instead of `page`: the opaque place
 * where the previous page ended. Both at once is a 400 (refused for every query in src/server/input.ts).
 */
export const CursorPaginationQuery = PaginationQuery.extend({
  cursor: z.string().trim().min(1, 'cursor must not be empty').max(300, 'cursor is not one this server gave').optional(),
});
