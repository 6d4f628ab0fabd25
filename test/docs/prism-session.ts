import type { Credentials } from '../helpers/server.js';
import type { PrismSession } from '../helpers/prism.js';

/**
 * A community's life through Prism, every operation of the document at least once with a success and once with
 * an error it documents (a wrong secret's 401 comes first for each, from the session itself). Every request is
 * valid against the document, so that Prism forwards it: the errors are agora's own (no such row, not allowed,
 * a conflict, a rule of the domain), which is what a client meets and what the document must describe.
 */
export interface Actors {
  member(nickname: string): Promise<{ id: string; creds: Credentials }>;
  adminId: string;
}

/** An id of the right form that no row has. */
export const NO_ID = '01a2157300000000000000000000ffff';

export async function walk(s: PrismSession, actors: Actors): Promise<{ ada: Person }> {
  const { call } = s;
  const tag = Math.random().toString(36).slice(2, 8);

  // Users: made by the admin; each then has a key of its own.
  const person = (nickname: string) => ({
    first_name: 'Prism',
    last_name: nickname,
    nickname: `${nickname}_${tag}`,
    email: `${nickname}-${tag}@example.org`,
    password: 'engine1843',
    accept_conditions: true,
    accept_confidentiality: true,
  });
  await call('POST', '/users', 201, { body: person('ada'), headers: { 'Idempotency-Key': `ada-${tag}` } });
  // The same key again: the same body answers the first response again, another body is refused.
  await call('POST', '/users', 201, { body: person('ada'), headers: { 'Idempotency-Key': `ada-${tag}` } });
  await call('POST', '/users', 422, { body: person('bob'), headers: { 'Idempotency-Key': `ada-${tag}` } });
  const ada = await actors.member(`ada_${tag}`);
  const grace = await actors.member(`grace_${tag}`);
  const linus = await actors.member(`linus_${tag}`);
  const mary = await actors.member(`mary_${tag}`);
  await call('POST', '/users', 409, { body: { ...person('ada2'), email: `ada-${tag}@example.org` } });
  await call('POST', '/users', 403, { as: grace.creds, body: person('eve') });
  await call('GET', '/users?per_page=2', 200);
  await call('GET', `/users?ids=${ada.id},${grace.id}`, 200);
  await call('GET', '/users?page=2&per_page=1', 200, { as: grace.creds });
  await call('GET', '/users/export', 200);
  await call('GET', '/users/export?format=csv', 200);
  await call('GET', '/users/export', 403, { as: grace.creds });
  await call('GET', `/users/nickname_availability?nickname=free_${tag}`, 200);
  await call('GET', `/users/nickname_availability?nickname=ada_${tag}`, 200, { as: grace.creds });
  await call('GET', `/users/${ada.id}`, 200, { as: grace.creds });
  await call('GET', `/users/${NO_ID}`, 404);
  await call('GET', '/me', 200, { as: ada.creds });
  // A webhook (the app allows loopback targets here) records a delivery of each change from now on.
  const hook = (await call('POST', '/webhooks', 201, { body: { url: 'http://127.0.0.1:9/hook', events: ['invite.created', 'page_access_request.created'] } })).body;

  // Page configurations and pages.
  const config = (await call('POST', '/page_configurations', 201, { body: { name: `Clubs ${tag}`, description: 'Clubs of the town' } })).body;
  await call('POST', '/page_configurations', 403, { as: grace.creds, body: { name: `Mine ${tag}` } });
  await call('GET', '/page_configurations', 200);
  await call('GET', `/page_configurations/${config.id}`, 200);
  await call('GET', `/page_configurations/${NO_ID}`, 404);
  const pageBody = { name: `Chess club ${tag}`, page_configuration_id: config.id, privacy: 'private', user_id: ada.id };
  const page = (await call('POST', '/pages', 201, { body: pageBody })).body;
  const open = (await call('POST', '/pages', 201, { as: ada.creds, body: { ...pageBody, name: `Open club ${tag}`, privacy: 'public' } })).body;
  await call('POST', '/pages', 404, { body: { ...pageBody, name: `Lost ${tag}`, page_configuration_id: NO_ID } });
  await call('GET', '/pages', 200, { as: grace.creds });
  await call('GET', `/pages?privacy=private&owner=${ada.id}`, 200);
  await call('GET', `/pages/${page.id}`, 200, { as: ada.creds });
  await call('GET', `/pages/${NO_ID}`, 404);

  // Follows.
  const follow = (await call('POST', '/follows', 201, { as: grace.creds, body: { followable_type: 'Page', followable_id: open.id, user_id: grace.id } })).body;
  await call('POST', '/follows', 409, { as: grace.creds, body: { followable_type: 'Page', followable_id: open.id, user_id: grace.id } });
  await call('POST', '/follows', 201, { as: linus.creds, body: { followable_type: 'User', followable_id: ada.id, user_id: linus.id } });
  await call('POST', '/follows', 404, { as: grace.creds, body: { followable_type: 'User', followable_id: NO_ID, user_id: grace.id } });
  await call('GET', `/follows?followable_type=Page&followable_id=${open.id}`, 200);
  await call('GET', `/follows/${follow.id}`, 200, { as: linus.creds });
  await call('GET', `/follows/${NO_ID}`, 404);
  await call('DELETE', `/follows/${follow.id}`, 403, { as: linus.creds });
  await call('DELETE', `/follows/${follow.id}`, 204, { as: grace.creds });
  await call('DELETE', `/follows/${follow.id}`, 404, { as: grace.creds });

  // Permissions.
  await call('GET', '/permissions', 200, { as: grace.creds });
  await call('GET', `/permissions?user_id=${ada.id}`, 200);
  await call('GET', `/permissions?user_id=${NO_ID}`, 404);
  await call('GET', `/users/${ada.id}/permissions`, 200);
  await call('GET', `/users/${NO_ID}/permissions`, 404);

  // Access requests to the private page.
  const request = (await call('POST', '/page_access_requests', 201, { as: grace.creds, body: { page_id: page.id, user_id: grace.id } })).body;
  await call('POST', '/page_access_requests', 409, { as: grace.creds, body: { page_id: page.id, user_id: grace.id } });
  await call('POST', '/page_access_requests', 404, { as: grace.creds, body: { page_id: NO_ID, user_id: grace.id } });
  const refused = (await call('POST', '/page_access_requests', 201, { as: linus.creds, body: { page_id: page.id, user_id: linus.id } })).body;
  await call('GET', '/page_access_requests?state=waiting', 200);
  await call('GET', `/pages/${page.id}/page_access_requests`, 200, { as: ada.creds });
  await call('GET', `/pages/${NO_ID}/page_access_requests`, 404);
  await call('PUT', `/page_access_requests/${request.id}/accept`, 403, { as: linus.creds });
  await call('PUT', `/page_access_requests/${request.id}/accept`, 200, { as: ada.creds });
  await call('PUT', `/page_access_requests/${request.id}/accept`, 409, { as: ada.creds });
  await call('PUT', `/page_access_requests/${refused.id}/refuse`, 204, { as: ada.creds });
  // A refused request is deleted.
  await call('PUT', `/page_access_requests/${refused.id}/refuse`, 404, { as: ada.creds });

  // Invites to the private page.
  const invited = (await call('POST', '/invites', 200, { as: ada.creds, body: { target_type: 'Page', target_id: page.id, user_id: ada.id, user_target_ids: [linus.id] } })).body;
  await call('POST', '/invites', 403, { as: linus.creds, body: { target_type: 'Page', target_id: page.id, user_id: linus.id, user_target_ids: [grace.id] } });
  await call('POST', '/invites', 404, { as: ada.creds, body: { target_type: 'Page', target_id: NO_ID, user_id: ada.id, user_target_ids: [linus.id] } });
  const invite = invited.success[0] as { id: string };
  await call('GET', '/invites', 200);
  await call('GET', `/pages/${page.id}/invites`, 200, { as: ada.creds });
  await call('GET', `/pages/${NO_ID}/invites`, 404);
  await call('GET', `/invites/${invite.id}`, 200, { as: linus.creds });
  await call('GET', `/invites/${NO_ID}`, 404);
  await call('PUT', `/invites/${invite.id}/accept`, 403, { as: grace.creds });
  // The page's administrator accepts or refuses its invites.
  await call('PUT', `/invites/${invite.id}/refuse`, 200, { as: ada.creds });
  await call('PUT', `/invites/${invite.id}/accept`, 409, { as: ada.creds });
  await call('PUT', `/invites/${invite.id}/refuse`, 409, { as: ada.creds });
  const again = (await call('POST', '/invites', 200, { as: ada.creds, body: { target_type: 'Page', target_id: page.id, user_id: ada.id, user_target_ids: [mary.id] } })).body;
  const second = again.success[0] as { id: string };
  await call('PUT', `/invites/${second.id}/accept`, 200, { as: ada.creds });
  // A settled invite is kept; a waiting one is withdrawn.
  await call('DELETE', `/invites/${second.id}`, 409, { as: ada.creds });
  const third = (await call('POST', '/invites', 200, { as: ada.creds, body: { target_type: 'Page', target_id: page.id, user_id: ada.id, user_target_ids: [linus.id] } })).body
    .success[0] as { id: string };
  await call('DELETE', `/invites/${third.id}`, 204, { as: ada.creds });
  await call('DELETE', `/invites/${third.id}`, 404, { as: ada.creds });

  await roles(s, { ada, grace, linus, tag, hook, mary: await actors.member(`mary_${tag}`) });
  await content(s, { ada, grace, linus, tag, page, adminId: actors.adminId });

  await call('GET', '/openapi.json', 200, { as: null });
  return { ada };
}

type Person = { id: string; creds: Credentials };

async function roles(
  s: PrismSession,
  { ada, grace, tag, hook, mary }: { ada: Person; grace: Person; linus: Person; tag: string; hook: { id: string }; mary: Person },
): Promise<void> {
  const { call } = s;
  await call('GET', '/permission_sets', 200);
  const body = { name: `Stewards ${tag}`, show_as_tagline: true, permissions: { statuses: { moderate: true, index: true, show: true } } };
  const set = (await call('POST', '/permission_sets', 201, { body })).body;
  await call('POST', '/permission_sets', 409, { body });
  await call('GET', `/permission_sets/${set.id}`, 200);
  await call('GET', `/permission_sets/${NO_ID}`, 404);
  await call('PUT', `/permission_sets/${set.id}`, 200, { body: { name: `Wardens ${tag}` } });
  await call('PUT', `/permission_sets/${NO_ID}`, 404, { body: { name: `Nobody ${tag}` } });
  await call('PUT', `/users/${grace.id}/role`, 200, { body: { permission_set_id: set.id } });
  await call('PUT', `/users/${grace.id}/role`, 404, { body: { permission_set_id: NO_ID } });
  await call('DELETE', `/permission_sets/${set.id}`, 409);
  const members = (await call('GET', '/permission_sets?name=Members', 200)).body;
  const memberSet = (members.items ?? members)[0] as { id: string };
  await call('PUT', `/users/${grace.id}/role`, 200, { body: { permission_set_id: memberSet.id } });
  await call('DELETE', `/permission_sets/${set.id}`, 204);
  await call('DELETE', `/permission_sets/${set.id}`, 404);

  // Webhooks and API keys.
  await call('POST', '/webhooks', 403, { as: ada.creds, body: { url: 'http://127.0.0.1:9/hook', events: ['invite.created'] } });
  await call('GET', '/webhooks', 200);
  await call('GET', `/webhooks/${hook.id}`, 200);
  await call('GET', `/webhooks/${NO_ID}`, 404);
  const deliveries = (await call('GET', `/webhooks/${hook.id}/deliveries`, 200)).body;
  await call('POST', `/webhook_deliveries/${deliveries.items[0].id}/redeliver`, 202);
  await call('GET', `/webhooks/${NO_ID}/deliveries`, 404);
  await call('POST', `/webhook_deliveries/${NO_ID}/redeliver`, 404);
  await call('DELETE', `/webhooks/${hook.id}`, 204);
  await call('DELETE', `/webhooks/${hook.id}`, 404);
  // Mary has two keys: the one this session made, and a second just made; the first is revoked.
  const keys = (await call('GET', `/api_keys?user_id=${mary.id}`, 200)).body;
  await call('GET', '/api_keys', 403, { as: ada.creds });
  await call('DELETE', `/api_keys/${keys.items[0].id}`, 204);
  await call('DELETE', `/api_keys/${keys.items[0].id}`, 404);
}

async function content(
  s: PrismSession,
  { ada, grace, linus, tag, page, adminId }: { ada: Person; grace: Person; linus: Person; tag: string; page: { id: string }; adminId: string },
): Promise<void> {
  const { call } = s;
  const status = (await call('POST', '/statuses', 201, { as: grace.creds, body: { user_id: grace.id, content: 'Who brings the clocks?', page_id: page.id } })).body;
  await call('POST', '/statuses', 403, { as: linus.creds, body: { user_id: grace.id, content: 'As Grace' } });
  await call('POST', '/statuses', 404, { as: grace.creds, body: { user_id: grace.id, content: 'Where?', page_id: NO_ID } });
  await call('GET', `/statuses?page_id=${page.id}`, 200, { as: ada.creds });
  await call('GET', `/statuses/${status.id}`, 200, { as: ada.creds });
  await call('GET', `/statuses/${NO_ID}`, 404);
  const comment = (await call('POST', '/comments', 201, { as: ada.creds, body: { user_id: ada.id, status_id: status.id, content: 'I do' } })).body;
  await call('POST', '/comments', 404, { as: ada.creds, body: { user_id: ada.id, status_id: NO_ID, content: 'Lost' } });
  await call('GET', `/statuses/${status.id}/comments`, 200, { as: grace.creds });
  await call('GET', `/statuses/${NO_ID}/comments`, 404);
  await call('GET', `/comments/${comment.id}`, 200, { as: grace.creds });
  await call('GET', `/comments/${NO_ID}`, 404);
  const like = (await call('POST', '/likes', 201, { as: grace.creds, body: { user_id: grace.id, comment_id: comment.id } })).body;
  await call('POST', '/likes', 409, { as: grace.creds, body: { user_id: grace.id, comment_id: comment.id } });
  await call('POST', '/likes', 201, { as: ada.creds, body: { user_id: ada.id, status_id: status.id } });
  await call('POST', '/likes', 404, { as: ada.creds, body: { user_id: ada.id, status_id: NO_ID } });
  await call('GET', `/statuses/${status.id}/likes`, 200, { as: grace.creds });
  await call('GET', `/statuses/${NO_ID}/likes`, 404);
  await call('GET', `/comments/${comment.id}/likes?user_id=${grace.id}`, 200, { as: ada.creds });
  await call('GET', `/comments/${NO_ID}/likes`, 404);
  await call('GET', `/likes/${like.id}`, 200, { as: ada.creds });
  await call('GET', `/likes/${NO_ID}`, 404);
  // Another's like: 403 for one who reads what was liked, 404 for one outside the private page (hidden from them).
  await call('DELETE', `/likes/${like.id}`, 403, { as: ada.creds });
  await call('DELETE', `/likes/${like.id}`, 404, { as: linus.creds });
  await call('DELETE', `/likes/${like.id}`, 204, { as: grace.creds });
  await call('DELETE', `/likes/${like.id}`, 404, { as: grace.creds });
  await call('GET', `/users/${ada.id}/stream`, 200, { as: ada.creds });
  await call('GET', `/users/${NO_ID}/stream`, 404);

  // Reports and moderation.
  const report = (await call('POST', '/reports', 201, { as: grace.creds, body: { user_id: grace.id, target_type: 'Comment', target_id: comment.id, reason: 'spam', comment: 'A shop' } })).body;
  await call('POST', '/reports', 409, { as: grace.creds, body: { user_id: grace.id, target_type: 'Comment', target_id: comment.id, reason: 'spam' } });
  // Outside the private page, its content is out of reach: as if it did not exist. A Member reports only for themself.
  await call('POST', '/reports', 404, { as: linus.creds, body: { user_id: linus.id, target_type: 'Comment', target_id: comment.id, reason: 'spam' } });
  await call('POST', '/reports', 403, { as: linus.creds, body: { user_id: grace.id, target_type: 'User', target_id: ada.id, reason: 'spam' } });
  await call('POST', '/reports', 404, { as: linus.creds, body: { user_id: linus.id, target_type: 'Status', target_id: NO_ID, reason: 'other' } });
  const other = (await call('POST', '/reports', 201, { as: linus.creds, body: { user_id: linus.id, target_type: 'User', target_id: grace.id, reason: 'abuse' } })).body;
  await call('GET', '/reports?state=open', 200);
  await call('GET', `/reports/${report.id}`, 200);
  await call('GET', `/reports/${NO_ID}`, 404);
  await call('GET', '/moderation_queue', 200);
  await call('PUT', `/reports/${other.id}/dismiss`, 200);
  await call('PUT', `/reports/${NO_ID}/dismiss`, 404);
  await call('PUT', `/reports/${report.id}/resolve`, 200, { body: { action: 'remove', reason: 'Spam' } });
  await call('PUT', `/reports/${NO_ID}/resolve`, 404, { body: { action: 'none' } });
  await call('DELETE', `/comments/${NO_ID}`, 404, { as: ada.creds });
  const second = (await call('POST', '/comments', 201, { as: ada.creds, body: { user_id: ada.id, status_id: status.id, content: 'Two' } })).body;
  await call('DELETE', `/comments/${second.id}`, 403, { as: linus.creds });
  await call('DELETE', `/comments/${second.id}`, 204, { as: ada.creds, body: { reason: 'Mine' } });
  await call('DELETE', `/statuses/${status.id}`, 403, { as: linus.creds });
  await call('DELETE', `/statuses/${status.id}?reason=Closed`, 204);
  // Gone: Admins, who still read it, are told it was removed already; anyone else finds nothing.
  await call('DELETE', `/statuses/${status.id}`, 409);
  await call('DELETE', `/statuses/${status.id}`, 404, { as: ada.creds });
  await call('GET', '/removed_content?target_type=Status', 200);
  await call('GET', '/removed_content', 403, { as: ada.creds });
  await call('PUT', `/users/${linus.id}/suspension`, 200, { body: { reason: 'Spam after two warnings', until: '2099-12-31T00:00:00.000Z' } });
  await call('PUT', `/users/${NO_ID}/suspension`, 404, { body: { reason: 'Nobody' } });
  await call('GET', '/me', 403, { as: linus.creds });
  await call('DELETE', `/users/${linus.id}/suspension`, 200);
  await call('DELETE', `/users/${linus.id}/suspension`, 403, { as: ada.creds });

  // Events.
  const eventBody = {
    name: `Winter open ${tag}`,
    user_id: ada.id,
    start_date: '2099-12-05T09:00:00Z',
    end_date: '2099-12-05T18:00:00Z',
    page_id: page.id,
    places_limit: 1,
    tickets: [{ name: 'Standard', price: '12.50', currency: 'EUR' }],
  };
  const event = (await call('POST', '/events', 201, { as: ada.creds, body: eventBody })).body;
  await call('POST', '/events', 422, { as: ada.creds, body: { ...eventBody, end_date: '2099-12-04T18:00:00Z' } });
  await call('POST', '/events', 404, { as: ada.creds, body: { ...eventBody, page_id: NO_ID } });
  await call('GET', '/events?date=2099-12-05', 200, { as: grace.creds });
  await call('GET', `/events/${event.id}`, 200, { as: grace.creds });
  await call('GET', `/events/${NO_ID}`, 404);
  await call('PUT', `/events/${event.id}/attendance`, 200, { as: grace.creds, body: { user_id: grace.id, answer: 'yes' } });
  await call('PUT', `/events/${event.id}/attendance`, 409, { body: { user_id: adminId, answer: 'yes' } });
  await call('PUT', `/events/${NO_ID}/attendance`, 404, { as: grace.creds, body: { user_id: grace.id, answer: 'no' } });
  await call('GET', `/events/${event.id}/attendees?answer=yes`, 200, { as: ada.creds });
  await call('GET', `/events/${NO_ID}/attendees`, 404);

  // Notifications (the fan-out has run: the app drains it before the session goes on) and the audit log.
  const notes = (await call('GET', `/users/${ada.id}/notifications?status=unseen`, 200, { as: ada.creds })).body;
  await call('GET', `/users/${ada.id}/notifications`, 403, { as: grace.creds });
  const first = (notes.items ?? notes)[0] as { id: string } | undefined;
  await call('PUT', `/users/${ada.id}/set_notifications_seen`, 200, { as: ada.creds, body: { notification_ids: first ? [first.id] : [] } });
  await call('PUT', `/users/${ada.id}/set_notifications_seen`, 200, { as: ada.creds });
  await call('PUT', `/users/${ada.id}/set_notifications_seen`, 403, { as: grace.creds });
  await call('GET', `/users/${ada.id}/notifications/stream`, 403, { as: grace.creds });
  await call('GET', `/users/${NO_ID}/notifications/stream`, 404);
  await call('GET', `/audit_log?target_type=user&target_id=${linus.id}`, 200);
  await call('GET', '/audit_log', 403, { as: ada.creds });
}
