/**
 * Records as the API answers them, taken from one session (Ada's private chess club, Grace asking to join),
 * for the examples of the OpenAPI document. Each is parsed by its own schema in test/api/openapi-doc.test.ts,
 * and each linter checks it against the document.
 */

const at = '2026-11-20T10:00:00.000Z';
const stamps = { created_at: at, updated_at: at };

export const EXAMPLE_ID = {
  ada: '01a21573eec473b9c8614dc20eb01eb8',
  grace: '01a21573ef9611c04db80e4499f946ce',
  members: '01a21573e95e13dfd56ef1652adda927',
  config: '01a21573ef997472667e1a817f86f411',
  page: '01a21573efa8552bc80fb618994f3114',
  request: '01a21573efcd0e0f74726ad07319cfe8',
  invite: '01a21573f0141683270aeab1e36d44ac',
  follow: '01a21573efa96ba46123718714b403bb',
  status: '01a21573f02b5c4559dc9a0a9d52ea5a',
  comment: '01a21573f03d0dc145ba545d155dbff6',
  like: '01a21573f0525599a51b4f4f989198a5',
  notification: '01a21573f0530785b8def34f8692b680',
  event: '01a21573f0744944a890b6967e73a8e5',
  webhook: '01a21573f0b16f50a077c29f1190a5be',
  delivery: '01a21573f0c2a8d61b9e4f3c7d5a2e10',
  apiKey: '01a21573ebd42cbdf31c3bc97c89f2e1',
  audit: '01a21573f0bf6439d3a5c6da3572fe65',
  request_id: '01a21573f0af1c159e6fee3df70cc296',
} as const;

const person = (id: string, first: string, last: string, nickname: string) => ({
  id,
  first_name: first,
  last_name: last,
  nickname,
  name: `${first} ${last}`,
  fullname: `${first} ${last}`,
  slug: nickname,
  email: `${nickname}@example.org`,
  permission_set_id: EXAMPLE_ID.members,
  tagline: null,
  ...stamps,
});

export const exampleUser = person(EXAMPLE_ID.ada, 'Ada', 'Lovelace', 'ada');
export const exampleOtherUser = person(EXAMPLE_ID.grace, 'Grace', 'Hopper', 'grace');

export const examplePageConfiguration = { id: EXAMPLE_ID.config, name: 'Clubs', description: 'Local clubs', ...stamps };

export const examplePage = {
  id: EXAMPLE_ID.page,
  name: 'Chess club',
  slug: 'chess-club',
  description: 'Thursdays at eight',
  privacy: 'private' as const,
  page_configuration_id: EXAMPLE_ID.config,
  user_id: EXAMPLE_ID.ada,
  ...stamps,
};

export const exampleFollow = {
  id: EXAMPLE_ID.follow,
  user_id: EXAMPLE_ID.ada,
  followable_type: 'Page' as const,
  followable_id: EXAMPLE_ID.page,
  followable: examplePage,
  created_at: at,
};

export const exampleAccessRequest = {
  id: EXAMPLE_ID.request,
  page_id: EXAMPLE_ID.page,
  user_id: EXAMPLE_ID.grace,
  page: examplePage,
  user: exampleOtherUser,
  is_validate: true,
  state: 'accepted' as const,
  ...stamps,
};

export const exampleInvite = {
  id: EXAMPLE_ID.invite,
  target_type: 'Page' as const,
  target_id: EXAMPLE_ID.page,
  user_id: EXAMPLE_ID.ada,
  user_target_id: EXAMPLE_ID.grace,
  user: exampleUser,
  user_target: exampleOtherUser,
  target: examplePage,
  is_accepted: false,
  is_validate: null,
  state: 'waiting' as const,
  ...stamps,
};

export const exampleStatus = {
  id: EXAMPLE_ID.status,
  user_id: EXAMPLE_ID.grace,
  user: exampleOtherUser,
  content: 'Who brings the clocks?',
  page_id: EXAMPLE_ID.page,
  event_id: null,
  comments_count: 1,
  likes_count: 0,
  ...stamps,
};

export const exampleComment = {
  id: EXAMPLE_ID.comment,
  status_id: EXAMPLE_ID.status,
  user_id: EXAMPLE_ID.ada,
  user: exampleUser,
  content: 'I do',
  likes_count: 1,
  ...stamps,
};

export const exampleLike = { id: EXAMPLE_ID.like, user_id: EXAMPLE_ID.grace, user: exampleOtherUser, status_id: null, comment_id: EXAMPLE_ID.comment, created_at: at };

export const exampleNotification = {
  id: EXAMPLE_ID.notification,
  user_id: EXAMPLE_ID.ada,
  seen: false,
  ...stamps,
  action_name: 'liked' as const,
  link_type: 'Status',
  notification_type: 'like' as const,
  subject_name: 'Grace Hopper',
  final_target_name: 'Chess club',
  comment_info: { id: EXAMPLE_ID.comment, excerpt: 'I do' },
  permissions: [] as 'accept'[],
  target_name: 'I do',
  picture_url: null,
  link_id: EXAMPLE_ID.status,
  subject_id: EXAMPLE_ID.grace,
  subject_type: 'User',
  subject_slug: 'grace',
  link_slug: null,
  target_type: 'Comment',
  target_id: EXAMPLE_ID.comment,
  target_slug: null,
  final_target_type: 'Page',
  final_target_id: EXAMPLE_ID.page,
  final_target_slug: 'chess-club',
};

export const exampleTicket = { name: 'Standard', price: '12.50', currency: 'EUR' };

export const exampleEvent = {
  id: EXAMPLE_ID.event,
  name: 'Winter open',
  slug: 'winter-open',
  description: null,
  user_id: EXAMPLE_ID.ada,
  page_id: EXAMPLE_ID.page,
  start_date: '2026-12-05T09:00:00.000Z',
  end_date: '2026-12-05T18:00:00.000Z',
  places_limit: 32,
  places_left: 31,
  attendees_count: 1,
  tickets: [exampleTicket],
  ...stamps,
};

export const exampleAttendance = { event_id: EXAMPLE_ID.event, user_id: EXAMPLE_ID.grace, user: exampleOtherUser, answer: 'yes' as const, ...stamps };

export const exampleWebhook = {
  id: EXAMPLE_ID.webhook,
  url: 'https://hooks.example.org/agora',
  events: ['page_access_request.created' as const, 'invite.created' as const],
  secret: 'whsec_Kdg/VmGie3RvpBrcDgDvss8Y0UP9ywxE',
  circuit: { state: 'closed' as const, consecutive_failures: 0, open_until: null },
  ...stamps,
};

export const exampleWebhookPayload = {
  id: EXAMPLE_ID.delivery,
  webhook_type: 'update' as const,
  resource: 'page_access_request' as const,
  data: exampleAccessRequest,
};

export const exampleDelivery = {
  id: EXAMPLE_ID.delivery,
  webhook_id: EXAMPLE_ID.webhook,
  message_id: EXAMPLE_ID.delivery,
  event: 'page_access_request.updated' as const,
  status: 'delivered' as const,
  attempts: 1,
  next_attempt_at: null,
  last_attempt_at: at,
  last_status_code: 204,
  last_error: null,
  delivered_at: at,
  created_at: at,
  payload: exampleWebhookPayload,
};

export const exampleApiKey = {
  id: EXAMPLE_ID.apiKey,
  user_id: EXAMPLE_ID.ada,
  api_key: 'ak_cb4b8bc6f9eab612f4654152b48860d9',
  created_at: at,
  last_used_at: at,
};

export const exampleAuditEntry = {
  id: EXAMPLE_ID.audit,
  created_at: at,
  actor_id: EXAMPLE_ID.ada,
  action: 'page_access_request.accept',
  target_type: 'page_access_request',
  target_id: EXAMPLE_ID.request,
  summary: 'accepted grace into Chess club',
  request_id: EXAMPLE_ID.request_id,
};
