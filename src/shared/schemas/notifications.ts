import { z } from 'zod';
import { formArray, Id, idInput, PaginationQuery, queryEnum, Timestamp } from './common.js';
import { EXAMPLE_ID, exampleNotification } from './examples.js';

export const NOTIFICATION_TYPES = [
  'follow',
  'status',
  'comment',
  'like',
  'page_access_request',
  'page_access_request_accepted',
  'invite',
  'invite_accepted',
  'event_attendance',
  'content_removed',
  'report',
  'report_resolved',
  'suspension_lifted',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export const ACTION_NAMES = ['followed', 'posted', 'commented', 'liked', 'requested', 'accepted', 'invited', 'answered', 'removed', 'reported', 'resolved', 'dismissed', 'suspended', 'lifted'] as const;
export type ActionName = (typeof ACTION_NAMES)[number];

export const MAX_NOTIFICATION_IDS = 1000;

export const ListNotificationsQuery = PaginationQuery.extend({ status: queryEnum('status', ['unseen'] as const) });
export type ListNotificationsQuery = z.infer<typeof ListNotificationsQuery>;

export const MarkNotificationsSeenInput = z.object({
  notification_ids: formArray(idInput)
    .refine((ids) => ids.length <= MAX_NOTIFICATION_IDS, `must name at most ${MAX_NOTIFICATION_IDS} notifications`)
    .optional()
    .describe('The notifications to mark; without it, every unseen notification of the user'),
}).meta({ id: 'MarkNotificationsSeenInput', examples: [{ notification_ids: [EXAMPLE_ID.notification] }] });
export type MarkNotificationsSeenInput = z.infer<typeof MarkNotificationsSeenInput>;

const nullableId = Id.nullable();
const nullableText = z.string().nullable();

export const NotificationSchema = z.object({
  id: Id,
  user_id: Id.describe('Who is notified'),
  seen: z.boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
  action_name: z.enum(ACTION_NAMES),
  link_type: z.string().describe('Where the reader should go: User, Page, Status, Event, PageAccessRequest or Invite'),
  notification_type: z.enum(NOTIFICATION_TYPES),
  subject_name: z.string().describe('The name of who acted'),
  final_target_name: z.string().describe('The name of where it happened (page, event or profile)'),
  comment_info: z.union([z.object({ id: Id, excerpt: z.string() }), z.object({})]),
  permissions: z.array(z.enum(['accept', 'refuse'])).describe('What the reader may do with it now'),
  target_name: nullableText,
  picture_url: nullableText,
  link_id: nullableId,
  subject_id: nullableId,
  subject_type: nullableText,
  subject_slug: nullableText,
  link_slug: nullableText,
  target_type: nullableText,
  target_id: nullableId,
  target_slug: nullableText,
  final_target_type: nullableText,
  final_target_id: nullableId,
  final_target_slug: nullableText,
}).meta({ id: 'Notification', examples: [exampleNotification] });
export type Notification = z.infer<typeof NotificationSchema>;
export const NotificationListSchema = z.array(NotificationSchema).meta({
  id: 'NotificationList',
  description: 'A page of notifications, newest first: a bare array (the total is in X-Total-Count)',
  examples: [[exampleNotification]],
});

export const MarkedSeenSchema = z
  .object({ updated: z.number().int().describe('How many notifications were marked seen') })
  .meta({ id: 'NotificationsMarkedSeen', examples: [{ updated: 1 }] });
