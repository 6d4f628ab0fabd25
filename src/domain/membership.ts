import { AppError, ErrorCode } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { Store } from '../store/store.js';

/**
 * Makes the user follow the page (membership), as an access request or an invite is accepted. One already in the
 * page (their other waiting request or invite was accepted first, or they followed it meanwhile) is a 409, as when
 * asking to join: the transaction, told last, undoes what it wrote before. One `INSERT … ON CONFLICT DO NOTHING`:
 * a follow made meanwhile by another process is told by the insert, without aborting the transaction (on
 * PostgreSQL a caught unique violation would have).
 */
export async function addMember(tx: Store, userId: string, pageId: string, now: string): Promise<void> {
  const follow = { id: newId(), user_id: userId, followable_type: 'Page', followable_id: pageId, created_at: now };
  if (!(await tx.follows.insertIfAbsent(follow))) throw new AppError(409, ErrorCode.alreadyMember, 'This user is already in this page');
}
