import type { Page } from '../shared/schemas/pages.js';
import type { User } from '../shared/schemas/users.js';
import type { Store } from '../store/store.js';
import type { Caller } from './context.js';
import { toPageRecord } from './pages.js';
import { toUserRecord } from './users.js';

/** Loads the users and pages a batch of records embeds, in two queries whatever the batch size. */
export async function loadEmbeds(
  store: Store,
  caller: Caller,
  userIds: string[],
  pageIds: string[],
): Promise<{ user(id: string): User; page(id: string): Page }> {
  const [users, pages] = await Promise.all([
    store.users.getByIds([...new Set(userIds)]),
    store.pages.getByIds([...new Set(pageIds)]),
  ]);
  const userById = new Map(users.map((u) => [u.id, toUserRecord(u, caller)]));
  const pageById = new Map(pages.map((p) => [p.id, toPageRecord(p)]));
  return {
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
