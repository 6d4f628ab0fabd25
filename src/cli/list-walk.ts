import type { ApiClient, Query } from '../client/api-client.js';

/** A list as the CLI prints it: one page, or a walk of the whole (`--all`, `--limit`). */
export interface Listing<T> {
  items: T[];
  total_items: number;
  /** Position of the first item in the whole list, from 1. */
  first?: number;
  /** Fetched by walking (`--all`, `--limit`): the paging hint is about those flags, not `--page`. */
  walked?: boolean;
  /** The walk stopped at `--limit`. */
  limited?: boolean;
}

export interface PageOptions {
  page?: number;
  perPage: number;
  all?: boolean;
  limit?: number;
  fields?: string[];
  header?: boolean;
}

export const pageQuery = (o: PageOptions) => ({ page: o.page ?? 1, per_page: o.perPage });

/**
 * One page of a list, or with `--all`/`--limit` the whole of it: the `Link: rel="next"` cursor when the server
 * gives one, else `page=1,2,…` until `total_items` is reached. `bare` lists (notifications) are arrays with the
 * total in `X-Total-Count`.
 */
export async function fetchList<T>(
  client: ApiClient,
  path: string,
  query: Query,
  o: PageOptions,
  bare = false,
  /** With `all`: the walk stops once this says what was read is enough (the rest cannot matter). */
  enough?: (items: T[]) => boolean,
): Promise<Listing<T>> {
  const read = async (q: Query) => {
    const answer = await client.answer<unknown>('GET', path, { query: q });
    const items = (bare ? answer.data : (answer.data as { items: T[] }).items) as T[];
    const total = bare ? (answer.total ?? items.length) : (answer.data as { total_items: number }).total_items;
    return { items, total, next: answer.next };
  };
  if (!o.all && o.limit === undefined) {
    const { items, total } = await read({ ...query, ...pageQuery(o) });
    return { items, total_items: total, first: (pageQuery(o).page - 1) * o.perPage + 1 };
  }
  const want = o.limit ?? Infinity;
  const perPage = Math.min(100, want);
  const items: T[] = [];
  let total: number;
  let q: Query = { ...query, page: 1, per_page: perPage };
  for (let page = 1; ; page++) {
    const got = await read(q);
    items.push(...got.items);
    total = got.total;
    if (items.length >= want || got.items.length === 0 || enough?.(items)) break;
    if (got.next) q = { ...query, ...got.next };
    else if (items.length >= total) break;
    else q = { ...query, page: page + 1, per_page: perPage };
  }
  const limited = items.length > want || (o.limit !== undefined && items.length === want && total > want);
  return { items: items.slice(0, want), total_items: total, first: 1, walked: true, limited };
}
