import { describe, expect, it } from 'vitest';
import { describeNotification } from '../../src/cli/commands/notifications.js';
import type { Notification } from '../../src/shared/schemas/notifications.js';

/** The one line `notifications list|watch` prints for a notification whose content is no longer shown (removed, or its author suspended). */
const told = (fields: Partial<Notification>) =>
  ({ subject_name: 'Ada Lovelace', final_target_type: 'Page', final_target_name: 'Garden Club', target_name: null, comment_info: {}, ...fields }) as Notification;

describe('a notification about content no longer shown', () => {
  it('says so of the status or comment, quoting nothing', () => {
    expect(describeNotification(told({ notification_type: 'status' }))).toBe('Ada Lovelace posted in Garden Club: (no longer shown)');
    expect(describeNotification(told({ notification_type: 'comment' }))).toBe('Ada Lovelace commented on your status in Garden Club: (no longer shown)');
  });
});

describe('a report settled', () => {
  const settled = (action_name: string, target_type: string, target_name: string | null) =>
    describeNotification(told({ notification_type: 'report_resolved', action_name, target_type, target_name } as Partial<Notification>));
  it('says what was done to what the reader reported', () => {
    expect(settled('removed', 'Status', 'cheap pills')).toBe('Ada Lovelace removed the status you reported: cheap pills');
    expect(settled('removed', 'Comment', null)).toBe('Ada Lovelace removed the comment you reported');
    expect(settled('suspended', 'User', 'mallory')).toBe('Ada Lovelace suspended the user you reported: mallory');
    expect(settled('suspended', 'Status', 'cheap pills')).toBe('Ada Lovelace suspended the author of the status you reported: cheap pills');
    expect(settled('resolved', 'Status', 'cheap pills')).toBe('Ada Lovelace resolved your report on cheap pills');
    expect(settled('dismissed', 'User', null)).toBe('Ada Lovelace dismissed your report on a user');
  });
});
