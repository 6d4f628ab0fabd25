import type { Generated } from 'kysely';

/** Every table's columns, as the store reads and writes them (booleans are 0/1 integers everywhere). */
type Stamped = { created_at: string; updated_at: string };
export interface Database {
  permission_sets: Stamped & {
    id: string;
    name: string;
    system_key: string | null;
    show_as_tagline: number;
    image_url: string | null;
    permissions: string;
  };
  users: Stamped & {
    id: string;
    first_name: string;
    last_name: string;
    nickname: string;
    /** The nickname folded (NFKC, lower case): unique, so that `Zed` and `zed` are one nickname. */
    nickname_key: string | null;
    /** Folded with lookalike letters read as Latin (`lookalikeKey`): unique, so `аda` cannot pass for `ada` (0047). */
    nickname_skeleton: string | null;
    email: string;
    password_hash: string;
    permission_set_id: string;
    slug: string;
    conditions_accepted_at: string;
    confidentiality_accepted_at: string;
  };
  api_keys: {
    id: string;
    user_id: string;
    api_key: string;
    secret_hash: string;
    created_at: string;
    /** Set when the pair is verified with scrypt (not at each request: within the verified-pair cache's lifetime). */
    last_used_at: string | null;
  };
  page_configurations: Stamped & {
    id: string;
    name: string;
    description: string | null;
  };
  pages: Stamped & {
    id: string;
    name: string;
    slug: string;
    description: string | null;
    privacy: string;
    page_configuration_id: string;
    user_id: string;
  };
  follows: {
    id: string;
    user_id: string;
    followable_type: string;
    followable_id: string;
    created_at: string;
    /** 1 when the followed page is secret (copied from the page by triggers, migration 0007). */
    secret_page: Generated<number>;
  };
  idempotency_keys: {
    user_id: string;
    idempotency_key: string;
    request_hash: string;
    status_code: number;
    response_body: string;
    created_at: string;
  };
  page_access_requests: Stamped & {
    id: string;
    page_id: string;
    user_id: string;
    state: string;
    is_validate: number;
    /** The page's creator, written by a trigger: a Member's list walks the requests to their pages. */
    page_owner_id: Generated<string>;
  };
  invites: Stamped & {
    id: string;
    target_type: string;
    target_id: string;
    user_id: string;
    user_target_id: string;
    state: string;
    is_validate: number | null;
    is_accepted: number;
    /** The page's creator, written by a trigger. */
    page_owner_id: Generated<string>;
  };
  webhooks: Stamped & {
    id: string;
    url: string;
    events: string;
    secret: string;
    user_id: string;
    /** Failed attempts in a row (any delivery); reset by a success. */
    consecutive_failures: number;
    /** While in the future, the webhook's deliveries wait (circuit breaker open). */
    circuit_open_until: string | null;
  };
  webhook_deliveries: {
    id: string;
    webhook_id: string;
    message_id: string;
    event: string;
    payload: string;
    status: string;
    attempts: number;
    next_attempt_at: string;
    last_attempt_at: string | null;
    last_status_code: number | null;
    last_error: string | null;
    delivered_at: string | null;
    created_at: string;
  };
  events: Stamped & {
    id: string;
    name: string;
    slug: string;
    description: string | null;
    user_id: string;
    page_id: string | null;
    start_date: string;
    end_date: string;
    places_limit: number | null;
    attendees_count: number;
    /** JSON array of {name, price, currency}; prices are decimal strings. */
    tickets: string;
    /** 1 when the event's page is secret (copied from the page by triggers, migration 0007). */
    secret_page: Generated<number>;
  };
  event_attendances: Stamped & {
    id: string;
    event_id: string;
    user_id: string;
    answer: string;
  };
  statuses: Stamped & {
    id: string;
    user_id: string;
    content: string;
    page_id: string | null;
    event_id: string | null;
    comments_count: number;
    likes_count: number;
  };
  comments: Stamped & {
    id: string;
    status_id: string;
    user_id: string;
    content: string;
    likes_count: number;
  };
  likes: {
    id: string;
    user_id: string;
    target_type: string;
    target_id: string;
    created_at: string;
  };
  notification_contents: {
    id: string;
    notification_type: string;
    action_name: string;
    subject_type: string | null;
    subject_id: string | null;
    subject_slug: string | null;
    subject_name: string;
    target_type: string | null;
    target_id: string | null;
    target_slug: string | null;
    target_name: string | null;
    final_target_type: string | null;
    final_target_id: string | null;
    final_target_slug: string | null;
    final_target_name: string;
    link_type: string;
    link_id: string | null;
    link_slug: string | null;
    picture_url: string | null;
    /** JSON object: {} or {id, excerpt}. */
    comment_info: string;
    created_at: string;
  };
  notifications: Stamped & {
    id: string;
    user_id: string;
    content_id: string;
    seen: number;
    /** The user's own sequence number, in commit order (the live stream resumes by it). */
    seq: number;
  };
  notification_counters: {
    user_id: string;
    total: number;
    unseen: number;
    /** The last `seq` given to one of the user's notifications. */
    seq: Generated<number>;
  };
  notification_jobs: {
    id: string;
    /** What every recipient is told. */
    content_id: string;
    /** JSON array of audiences, walked in order. */
    audiences: string;
    /** JSON array of user ids never notified (the actor). */
    excluded: string;
    audience_index: number;
    /** The last user id notified in the current audience ('' before the first). */
    cursor: string;
    /** Free to claim when in the past; a claim moves it forward. */
    lease_until: string;
    created_at: string;
  };
  audit_log: {
    id: string;
    created_at: string;
    /** Null for acts done offline, straight on the store (`agora admin create-key`). */
    actor_id: string | null;
    action: string;
    target_type: string;
    target_id: string;
    summary: string;
    request_id: string | null;
  };
  /** One row per waiting access request or invite (same id), with its page's creator. */
  moderation_queue: {
    id: string;
    kind: string;
    page_id: string;
    page_owner_id: string;
    user_id: string;
    created_at: string;
  };
  /** Exact totals of the lists, kept by triggers (see counters.ts). */
  list_counts: {
    key: string;
    n: number;
  };
  /** A removed status or comment, as it was, and its removal. */
  removed_content: Database['statuses'] & {
    target_type: 'Status' | 'Comment';
    /** A comment's status. */
    status_id: string | null;
    removed_at: string;
    removed_by: string;
    removal_reason: string | null;
  };
  suspensions: {
    user_id: string;
    reason: string;
    until: string | null;
    created_at: string;
    created_by: string;
  };
  reports: Stamped & {
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
  };
}
