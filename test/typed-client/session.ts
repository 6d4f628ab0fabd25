import createClient from 'openapi-fetch';
// Generated from the served document by test/api/typed-client.test.ts (openapi-typescript) before this is type-checked.
import type { components, paths } from './generated/agora-api.js';

type User = components['schemas']['User'];
type ErrorBody = components['schemas']['Error'];

/**
 * An integration's session through a client generated from the OpenAPI document, type-checked under strict and
 * exactOptionalPropertyTypes: an administrator's key acting for two users (as a server-side integration does).
 */
export async function walkSession(baseUrl: string, key: { key: string; secret: string }) {
  const api = createClient<paths>({ baseUrl, headers: { 'Api-Key': key.key, 'Api-Secret': key.secret } });
  const P = '/public-api/v1';

  /** The data of a success; a failure is thrown with its error body's code, which the types know. */
  const ok = <T>(answer: { data?: T; error?: ErrorBody; response: Response }): T => {
    if (answer.data === undefined) throw new Error(`${answer.response.status} ${answer.error?.error.code}: ${answer.error?.error.message}`);
    return answer.data;
  };
  const tag = Math.random().toString(36).slice(2, 8);
  const person = async (first: string, nickname: string): Promise<User> =>
    ok(
      await api.POST(`${P}/users`, {
        body: {
          first_name: first,
          last_name: 'Typed',
          nickname: `${nickname}_${tag}`,
          email: `${nickname}-${tag}@example.org`,
          password: 'engine1843',
          accept_conditions: true,
          accept_confidentiality: true,
        },
      }),
    );
  const ada = await person('Ada', 'ada');
  const grace = await person('Grace', 'grace');

  // The same email again: the error is typed, its code one of the enum's.
  const taken = await api.POST(`${P}/users`, {
    body: { first_name: 'Ada', last_name: 'Again', nickname: `ada2_${tag}`, email: `ada-${tag}@example.org`, password: 'engine1843', accept_conditions: true, accept_confidentiality: true },
  });
  const takenCode: ErrorBody['error']['code'] | undefined = taken.error?.error.code;

  const config = ok(await api.POST(`${P}/page_configurations`, { body: { name: `Clubs ${tag}` } }));
  const page = ok(
    await api.POST(`${P}/pages`, {
      body: { name: `Chess club ${tag}`, page_configuration_id: config.id, privacy: 'private', user_id: ada.id },
      params: { header: { 'Idempotency-Key': `page-${tag}` } },
    }),
  );

  const request = ok(await api.POST(`${P}/page_access_requests`, { body: { page_id: page.id, user_id: grace.id } }));
  const accepted = ok(await api.PUT(`${P}/page_access_requests/{id}/accept`, { params: { path: { id: request.id } } }));

  const status = ok(await api.POST(`${P}/statuses`, { body: { user_id: grace.id, content: 'Who brings the clocks?', page_id: page.id } }));
  const comment = ok(await api.POST(`${P}/comments`, { body: { user_id: ada.id, status_id: status.id, content: 'I do' } }));
  const like = ok(await api.POST(`${P}/likes`, { body: { user_id: grace.id, comment_id: comment.id } }));

  const listed = await api.GET(`${P}/users/{user_id}/notifications`, { params: { path: { user_id: ada.id }, query: { status: 'unseen' } } });
  const notifications = ok(listed);
  const totalHeader = Number(listed.response.headers.get('x-total-count'));
  const first = notifications[0];
  const markedOne = ok(
    await api.PUT(`${P}/users/{user_id}/set_notifications_seen`, {
      params: { path: { user_id: ada.id } },
      body: { notification_ids: first ? [first.id] : [] },
    }),
  );
  // No body: every unseen notification.
  const markedRest = ok(await api.PUT(`${P}/users/{user_id}/set_notifications_seen`, { params: { path: { user_id: ada.id } } }));

  const event = ok(
    await api.POST(`${P}/events`, {
      body: {
        name: `Winter open ${tag}`,
        user_id: ada.id,
        start_date: '2099-12-05T09:00:00Z',
        end_date: '2099-12-05T18:00:00Z',
        page_id: page.id,
        places_limit: 2,
        tickets: [{ name: 'Standard', price: '12.50', currency: 'EUR' }],
      },
    }),
  );
  const attendance = ok(
    await api.PUT(`${P}/events/{event_id}/attendance`, { params: { path: { event_id: event.id } }, body: { user_id: grace.id, answer: 'yes' } }),
  );

  // A Link walk: one record a page, following rel="next" (a cursor) to the end.
  const walked: string[] = [];
  let cursor: string | undefined;
  let total = 0;
  for (let step = 0; step < 50; step++) {
    const answer = await api.GET(`${P}/follows`, { params: { query: { per_page: 1, followable_type: 'Page', followable_id: page.id, ...(cursor ? { cursor } : {}) } } });
    const list = ok(answer);
    total = list.total_items;
    walked.push(...list.items.map((f) => f.user_id));
    const link = answer.response.headers.get('link');
    const next = link && /<([^>]+)>;\s*rel="next"/.exec(link)?.[1];
    if (!next) break;
    cursor = new URL(next, baseUrl).searchParams.get('cursor') ?? undefined;
  }

  return {
    takenCode,
    accepted: { state: accepted.state, is_validate: accepted.is_validate },
    like: { comment_id: like.comment_id, status_id: like.status_id },
    notificationTypes: notifications.map((n) => n.notification_type),
    totalHeader,
    marked: markedOne.updated + markedRest.updated,
    // (`event` is null only to one who takes back an answer to an event hidden from them since.)
    event: { places_left: attendance.event?.places_left, tickets: event.tickets, answer: attendance.answer },
    walk: { users: walked, total },
  };
}
