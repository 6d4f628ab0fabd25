import { newId } from '../shared/ids.js';
import type { Store } from '../store/store.js';

/**
 * Makes the user follow the page (membership); a follow that already exists is kept as it is. One
 * `INSERT … ON CONFLICT DO NOTHING`: a follow made meanwhile by another process neither fails nor aborts the
 * transaction (on PostgreSQL a caught unique violation would have).
 */
export async function addMember(tx: Store, userId: string, pageId: string, now: string): Promise<void> {
  await tx.follows.insertIfAbsent({ id: newId(), user_id: userId, followable_type: 'Page', followable_id: pageId, created_at: now });
}
