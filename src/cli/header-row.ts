/**
 * The words a list's `--header` row is made of: the headers of the lists' columns, and the records' own fields,
 * which `--fields` takes too and prints as they are spelled. test/cli/header-row.test.ts keeps this equal to them.
 */
const LIST_FIELDS = new Set([
  // Column headers.
  'about', 'action', 'actor', 'answer', 'api_key', 'attempts', 'attendees', 'author', 'comment', 'comments', 'config',
  'content', 'created', 'default', 'description', 'email', 'end', 'event', 'events', 'followed', 'followed name',
  'from', 'id', 'kind', 'last code', 'last error', 'last used', 'likes', 'name', 'next attempt', 'nickname', 'owner',
  'page', 'places left', 'privacy', 'reason', 'removed by', 'reporter', 'reports', 'request', 'resolution', 'role', 'seen', 'since',
  'slug', 'start', 'state', 'status', 'summary', 'suspended', 'tagline', 'target', 'tickets', 'to', 'type', 'url',
  'user', 'waiting since', 'what', 'when',
  // Records' fields that no column is headed by.
  'action_name', 'actor_id', 'attendees_count', 'circuit', 'comment_id', 'comment_info', 'comments_count', 'created_at',
  'delivered_at', 'end_date', 'event_id', 'final_target_id', 'final_target_name', 'final_target_slug',
  'final_target_type', 'first_name', 'followable', 'followable_id', 'followable_type', 'fullname', 'image_url',
  'is_accepted', 'is_default', 'is_validate', 'last_attempt_at', 'last_error', 'last_name', 'last_status_code',
  'last_used_at', 'likes_count', 'link_id', 'link_slug', 'link_type', 'message_id', 'next_attempt_at',
  'notification_type', 'page_configuration_id', 'page_id', 'payload', 'permission_set_id', 'permissions',
  'picture_url', 'places_left', 'places_limit', 'removal_reason', 'removed_at', 'removed_by', 'request_id',
  'resolved_by', 'secret', 'show_as_tagline', 'start_date', 'status_id', 'subject_id', 'subject_name',
  'subject_slug', 'subject_type', 'suspension', 'target_id', 'target_name', 'target_slug', 'target_type',
  'updated_at', 'user_id', 'user_target', 'user_target_id', 'webhook_id',
]);

/**
 * Whether the first line piped in is the header row of one of our lists (`list --fields nickname,id --header`):
 * every cell a field name of our lists. A ref that is one (a user nicknamed `email`) alone on the first line is
 * taken for a header too; a whole id never is.
 */
export const isHeaderRow = (line: string): boolean => {
  const cells = line.split('\t').map((cell) => cell.trim());
  return cells.some(Boolean) && cells.every((cell) => LIST_FIELDS.has(cell));
};
