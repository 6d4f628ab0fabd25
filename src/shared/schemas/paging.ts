import { z } from 'zod';
import { PaginationQuery } from './common.js';

/**
 * `page`/`per_page`, or `cursor` (from a `Link: rel="next"` header) instead of `page`: the opaque place
 * where the previous page ended. Both at once is a 400.
 */
export const CursorPaginationQuery = PaginationQuery.extend({
  cursor: z.string().trim().min(1, 'cursor must not be empty').max(300, 'cursor is not one this server gave').optional(),
});

/** Refuses `cursor` together with `page` (checked on the raw query, before `page` takes its default). */
export const refuseCursorWithPage = <T extends z.ZodType>(schema: T) =>
  z.preprocess((raw, ctx) => {
    const query = raw as Record<string, unknown> | undefined;
    if (query && query.cursor !== undefined && query.page !== undefined)
      ctx.issues.push({ code: 'custom', message: 'give either cursor or page, not both', path: ['cursor'], input: raw });
    return raw;
  }, schema);
