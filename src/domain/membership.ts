import { newId } from '../shared/ids.js';
import { isUniqueViolation } from '../store/errors.js';
import type { Store } from '../store/store.js';

/** Makes the user follow the page (membership); a follow that already exists is kept as it is. */
export async function addMember(tx: Store, userId: string, pageId: string, now: string): Promise<void> {
  if (await tx.follows.find(userId, 'Page', pageId)) return;
  try {
    await tx.follows.insert({ id: newId(), user_id: userId, followable_type: 'Page', followable_id: pageId, created_at: now });
  } catch (error) {
    if (!isUniqueViolation(error, 'follows')) throw error;
  }
}
