/** The tables of moderation (migration 0030-moderation): removed content, suspensions, reports. */

export interface RemovedContentTable {
  id: string;
  target_type: 'Status' | 'Comment';
  user_id: string;
  /** A comment's status. */
  status_id: string | null;
  page_id: string | null;
  event_id: string | null;
  content: string;
  comments_count: number;
  likes_count: number;
  created_at: string;
  updated_at: string;
  removed_at: string;
  removed_by: string;
  removal_reason: string | null;
}

export interface SuspensionTable {
  user_id: string;
  reason: string;
  until: string | null;
  created_at: string;
  created_by: string;
}

export interface ReportTable {
  id: string;
  user_id: string;
  target_type: string;
  target_id: string;
  /** The user reported, or the content's author. */
  target_user_id: string;
  /** The page the reported content is in (its administrators see the report). */
  page_id: string | null;
  /** The creator of that page, read from it when the report is written (the moderation queue walks by it). */
  page_owner_id: string | null;
  excerpt: string;
  reason: string;
  comment: string | null;
  state: string;
  resolution: string | null;
  resolved_by: string | null;
  created_at: string;
  updated_at: string;
}
