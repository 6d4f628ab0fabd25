/** Column types of every table, as the store reads and writes them (booleans are 0/1 integers everywhere). */
export interface PermissionSetTable {
  id: string;
  name: string;
  system_key: string | null;
  show_as_tagline: number;
  image_url: string | null;
  permissions: string;
  created_at: string;
  updated_at: string;
}

export interface UserTable {
  id: string;
  first_name: string;
  last_name: string;
  nickname: string;
  /** The nickname folded (NFKC, lower case): unique, so that `Zed` and `zed` are one nickname. */
  nickname_key: string | null;
  email: string;
  password_hash: string;
  permission_set_id: string;
  slug: string;
  conditions_accepted_at: string;
  confidentiality_accepted_at: string;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyTable {
  id: string;
  user_id: string;
  api_key: string;
  secret_hash: string;
  created_at: string;
  /** Set when the pair is verified with scrypt (not at each request: within the verified-pair cache's lifetime). */
  last_used_at: string | null;
}

export interface PageConfigurationTable {
  id: string;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export interface PageTable {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  privacy: string;
  page_configuration_id: string;
  user_id: string;
  created_at: string;
  updated_at: string;
}

export interface FollowTable {
  id: string;
  user_id: string;
  followable_type: string;
  followable_id: string;
  created_at: string;
}

export interface IdempotencyKeyTable {
  user_id: string;
  idempotency_key: string;
  request_hash: string;
  status_code: number;
  response_body: string;
  created_at: string;
}

export interface Database {
  permission_sets: PermissionSetTable;
  users: UserTable;
  api_keys: ApiKeyTable;
  page_configurations: PageConfigurationTable;
  pages: PageTable;
  follows: FollowTable;
  idempotency_keys: IdempotencyKeyTable;
  page_access_requests: PageAccessRequestTable;
  invites: InviteTable;
  webhooks: WebhookTable;
  webhook_deliveries: WebhookDeliveryTable;
}

export interface PageAccessRequestTable {
  id: string;
  page_id: string;
  user_id: string;
  state: string;
  is_validate: number;
  created_at: string;
  updated_at: string;
}

export interface InviteTable {
  id: string;
  target_type: string;
  target_id: string;
  user_id: string;
  user_target_id: string;
  state: string;
  is_validate: number | null;
  is_accepted: number;
  created_at: string;
  updated_at: string;
}

export interface WebhookTable {
  id: string;
  url: string;
  events: string;
  secret: string;
  user_id: string;
  created_at: string;
  updated_at: string;
  /** Failed attempts in a row (any delivery); reset by a success. */
  consecutive_failures: number;
  /** While in the future, the webhook's deliveries wait (circuit breaker open). */
  circuit_open_until: string | null;
}

export interface WebhookDeliveryTable {
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
}
