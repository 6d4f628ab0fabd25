import type { Page } from '../shared/schemas/pages.js';
import type { User } from '../shared/schemas/users.js';
import type { PageRow } from '../store/pages.js';
import type { Store } from '../store/store.js';
import type { UserWithRole } from '../store/users.js';
import type { Caller } from './context.js';
import { toPageRecord } from './pages.js';
import { toUserRecord } from './users.js';

/** The users and pages a list's rows carry already (joined in the list's statement, `Embeds` in the store). */
export interface Joined {
  users?: (UserWithRole | undefined)[];
  pages?: (PageRow | undefined)[];
}

/**
 * The users and pages a batch of records embeds: those its rows carry (`joined`: a list's rows, read in the list's
 * one statement), the rest read in two queries whatever the batch size (null ids, of a record that embeds none,
 * are skipped). `user` and `page` throw for one missing; `users` and `pages` let the caller decide.
 */
export async function loadEmbeds(
  store: Store,
  caller: Caller,
  userIds: (string | null)[],
  pageIds: (string | null)[],
  now: Date,
  joined: Joined = {},
): Promise<{ users: Map<string, User>; pages: Map<string, Page>; user(id: string): User; page(id: string): Page }> {
  const carried = <Row extends { id: string }>(rows: (Row | undefined)[] = []) => rows.filter((row): row is Row => row !== undefined);
  const [joinedUsers, joinedPages] = [carried(joined.users), carried(joined.pages)];
  const missing = (ids: (string | null)[], known: { id: string }[]) => {
    const have = new Set(known.map((row) => row.id));
    return [...new Set(ids.filter((id): id is string => id !== null && !have.has(id)))];
  };
  const [users, pages] = await Promise.all([
    store.users.getByIds(missing(userIds, joinedUsers)),
    store.pages.getByIds(missing(pageIds, joinedPages)),
  ]);
  const userById = new Map([...joinedUsers, ...users].map((u) => [u.id, toUserRecord(u, caller, now)]));
  const pageById = new Map([...joinedPages, ...pages].map((p) => [p.id, toPageRecord(p)]));
  return {
    users: userById,
    pages: pageById,
    user: (id) => {
      const user = userById.get(id);
      if (!user) throw new Error(`embedded user ${id} is missing`);
      return user;
    },
    page: (id) => {
      const page = pageById.get(id);
      if (!page) throw new Error(`embedded page ${id} is missing`);
      return page;
    },
  };
}
