import { NEXT_PAGE, type ListResult, type Pagination } from '../shared/schemas/common.js';
import { AppError } from '../shared/errors.js';

/**
 * A list asked for by `ids` (at most 100): the records the caller may see, in the order asked, paged like any
 * list. `read` answers each id's record, or throws 404/403 for one unknown or hidden, which is left out.
 */
export async function listByIds<T>(
  ids: string[],
  page: Pagination,
  read: (id: string) => Promise<T>,
): Promise<ListResult<T>> {
  const found = await Promise.all(
    ids.map((id) =>
      read(id).catch((error: unknown) => {
        if (error instanceof AppError && (error.status === 404 || error.status === 403)) return undefined;
        throw error;
      }),
    ),
  );
  const visible = found.filter((record): record is Awaited<T> => record !== undefined);
  const start = (page.page - 1) * page.per_page;
  // More than a page: the next one by its number (a list by ids takes no cursor).
  const next = start + page.per_page < visible.length ? page.page + 1 : undefined;
  return { items: visible.slice(start, start + page.per_page), total_items: visible.length, [NEXT_PAGE]: next };
}
