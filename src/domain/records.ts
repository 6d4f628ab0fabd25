import type { Page } from '../shared/schemas/pages.js';
import type { User } from '../shared/schemas/users.js';
import type { Store } from '../store/store.js';
import type { Caller } from './context.js';
import { toPageRecord } from './pages.js';
import { toUserRecord } from './users.js';

/**
 * Loads the users and pages a batch of records embeds, in two queries whatever the batch size (null ids, of a
 * record that embeds none, are skipped). `user` and `page` throw for one missing; `users` and `pages` let the
 * caller decide.
 */
export async function loadEmbeds(
  store: Store,
  caller: Caller,
  userIds: (string | null)[],
  pageIds: (string | null)[],
  now: Date,
): Promise<{ users: Map<string, User>; pages: Map<string, Page>; user(id: string): User; page(id: string): Page }> {
  const present = (ids: (string | null)[]) => [...new Set(ids.filter((id): id is string => id !== null))];
  const [users, pages] = await Promise.all([store.users.getByIds(present(userIds)), store.pages.getByIds(present(pageIds))]);
  const userById = new Map(users.map((u) => [u.id, toUserRecord(u, caller, now)]));
  const pageById = new Map(pages.map((p) => [p.id, toPageRecord(p)]));
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
