import { describe, expect, it } from 'vitest';
import { describeNotification } from '../../src/cli/commands/notifications.js';
import type { Notification } from '../../src/shared/schemas/notifications.js';

/** The one line `notifications list|watch` prints for a notification whose content was removed since. */
const told = (fields: Partial<Notification>) =>
  ({ subject_name: 'Ada Lovelace', final_target_type: 'Page', final_target_name: 'Garden Club', target_name: null, comment_info: {}, ...fields }) as Notification;

describe('a notification about removed content', () => {
  it('says the status or comment was removed, quoting nothing', () => {
    expect(describeNotification(told({ notification_type: 'status' }))).toBe('Ada Lovelace posted in Garden Club: (removed)');
    expect(describeNotification(told({ notification_type: 'comment' }))).toBe('Ada Lovelace commented on your status in Garden Club: (removed)');
  });
});
