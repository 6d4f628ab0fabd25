import type { SelectQueryBuilder } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';

/** Rows to skip before the requested page. */
export const offsetOf = (page: Pagination): number => (page.page - 1) * page.per_page;

/** How many rows a (filtered) query matches. */
export async function countOf<DB, TB extends keyof DB>(query: SelectQueryBuilder<DB, TB, object>): Promise<number> {
  const row = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number((row as { n: number | string | bigint }).n);
}
