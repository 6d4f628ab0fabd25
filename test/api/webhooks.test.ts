import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUser, createUserWithKey } from '../helpers/api.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../helpers/receiver.js';
import { removeDir, startServer, type Credentials, type RunningServer } from '../helpers/server.js';

/**
 * Webhooks against the real binary and a real HTTP receiver on loopback: registration rules, the
 * Standard Webhooks signature, payloads, retries, redelivery, durability across a restart, and a hanging
 * receiver that must not hold the API.
 */

const ALLOW_PRIVATE = { AGORA_WEBHOOKS_ALLOW_PRIVATE: '1' };
const ALL_EVENTS = [
  'page_access_request.created',
  'page_access_request.updated',
  'page_access_request.deleted',
  'invite.created',
  'invite.updated',
  'invite.deleted',
];

interface Delivery {
  id: string;
  webhook_id: string;
  message_id: string;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
  payload: any;
}

// The main server: private targets allowed (the receiver is on loopback), two quick retries. Beside it,
// started at the same time (each start takes a while): `strict`, without AGORA_WEBHOOKS_ALLOW_PRIVATE,
// and `slow`, for the hanging receiver, so that its held attempts cannot delay other tests.
let server: RunningServer;
let strict: RunningServer;
let slow: RunningServer;
let configId: string;
let memberCreds: Promise<Credentials> | undefined;
/** One Member with an API key, made once (through the real CLI, which is slow to start). */
const member = () => (memberCreds ??= createUserWithKey(server).then((m) => m.creds));
beforeAll(async () => {
  [server, strict, slow] = await Promise.all([
    startServer({ env: { ...ALLOW_PRIVATE, AGORA_WEBHOOK_RETRY_SCHEDULE: '1,1', AGORA_WEBHOOK_TIMEOUT_MS: '3000' } }),
    startServer(),
    startServer({
      env: {
        ...ALLOW_PRIVATE,
        AGORA_WEBHOOK_RETRY_SCHEDULE: '1,1',
        AGORA_WEBHOOK_TIMEOUT_MS: '3000',
        AGORA_WEBHOOK_CONCURRENCY: '10',
      },
    }),
  ]);
  configId = (await createPageConfiguration(server)).id;
});
afterAll(async () => {
  for (const s of [server, strict, slow]) {
    if (!s) continue;
    await s.stop();
    removeDir(s.dir);
  }
});

// Receivers and webhooks made by a test are removed after it, so that no test hears another's events.
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const r = await startReceiver(...args);
  cleanups.push(() => r.close());
  return r;
}

async function registerWebhook(s: RunningServer, url: string, events: string[] = ALL_EVENTS) {
  const res = await call(s, 'POST', '/webhooks', { body: { url, events } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const hook = res.body as { id: string; url: string; events: string[]; secret: string };
  cleanups.push(() => call(s, 'DELETE', `/webhooks/${hook.id}`));
  return hook;
}

async function listDeliveries(s: RunningServer, hookId: string): Promise<Delivery[]> {
  const res = await call(s, 'GET', `/webhooks/${hookId}/deliveries`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items as Delivery[];
}

/** Polls GET /webhooks/{id}/deliveries until `predicate` holds, or fails with what was seen. */
async function waitForDeliveries(
  s: RunningServer,
  hookId: string,
  predicate: (items: Delivery[]) => boolean,
  timeoutMs = 10_000,
): Promise<Delivery[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const items = await listDeliveries(s, hookId);
    if (predicate(items)) return items;
    if (Date.now() > deadline) {
      const seen = items.map(({ payload, ...rest }) => ({ ...rest, data_id: payload?.data?.id }));
      throw new Error(`deliveries never matched; last seen: ${JSON.stringify(seen)}`);
    }
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

/** Standard Webhooks, verified independently of the server's code. */
function expectSigned(secret: string, request: ReceivedRequest): void {
  const id = request.headers['webhook-id'] as string;
  const timestamp = request.headers['webhook-timestamp'] as string;
  const signature = request.headers['webhook-signature'] as string;
  expect(id).toBeTruthy();
  expect(timestamp).toMatch(/^\d+$/);
  expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(30);
  expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  expect(secret.startsWith('whsec_')).toBe(true);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.rawBody}`).digest('base64');
  // The header may carry several space-separated signatures; one of them must be ours.
  expect(signature.split(' ')).toContain(`v1,${expected}`);
  // And a different secret does not verify.
  const other = createHmac('sha256', Buffer.alloc(key.length, 1)).update(`${id}.${timestamp}.${request.rawBody}`).digest('base64');
  expect(signature.split(' ')).not.toContain(`v1,${other}`);
}

const privatePage = async (s: RunningServer, config = configId) => {
  const owner = await createUser(s);
  return createPage(s, { user_id: owner.id, page_configuration_id: config, privacy: 'private' });
};

async function createAccessRequest(s: RunningServer, pageId: string, userId?: string) {
  const user = userId ?? (await createUser(s)).id;
  const res = await call(s, 'POST', '/page_access_requests', { body: { page_id: pageId, user_id: user } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; page_id: string; user_id: string; state: string };
}

async function createInvite(s: RunningServer, page: { id: string; user_id: string }) {
  const target = await createUser(s);
  const res = await call(s, 'POST', '/invites', {
    body: { target_type: 'Page', target_id: page.id, user_id: page.user_id, user_target_ids: [target.id] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.errors).toEqual([]);
  return res.body.success[0] as { id: string; user_target_id: string; state: string };
}

/** Requests whose payload is about the record `id`. */
const about = (requests: ReceivedRequest[], id: string) => requests.filter((r) => r.body?.data?.id === id);

describe('webhook registration', () => {
  it('is for Admins only: a Member gets 403 and nothing is registered', async () => {
    const creds = await member();
    const before = (await call(server, 'GET', '/webhooks')).body.total_items as number;
    const create = await call(server, 'POST', '/webhooks', {
      as: creds,
      body: { url: 'http://127.0.0.1:9/hook', events: ['invite.created'] },
    });
    expect(create.status).toBe(403);
    expect(create.body.error.code).toBe('forbidden');
    expect((await call(server, 'GET', '/webhooks', { as: creds })).status).toBe(403);
    expect((await call(server, 'GET', '/webhooks')).body.total_items).toBe(before);

    const hook = await registerWebhook(server, 'http://127.0.0.1:9/hook', ['invite.created']);
    expect((await call(server, 'GET', `/webhooks/${hook.id}`, { as: creds })).status).toBe(403);
    expect((await call(server, 'GET', `/webhooks/${hook.id}/deliveries`, { as: creds })).status).toBe(403);
    expect((await call(server, 'DELETE', `/webhooks/${hook.id}`, { as: creds })).status).toBe(403);
    expect((await call(server, 'GET', `/webhooks/${hook.id}`)).status).toBe(200);
  });

  it('answers 422 for a URL that is not http(s), an unknown event or no event', async () => {
    const before = (await call(server, 'GET', '/webhooks')).body.total_items as number;
    const cases: [Record<string, unknown>, string][] = [
      [{ url: 'ftp://example.org/hook', events: ['invite.created'] }, 'url'],
      [{ url: 'file:///etc/passwd', events: ['invite.created'] }, 'url'],
      [{ url: 'not a url', events: ['invite.created'] }, 'url'],
      [{ url: 'http://user:pass@example.org/hook', events: ['invite.created'] }, 'url'],
      [{ url: `https://example.org/${'x'.repeat(2048)}`, events: ['invite.created'] }, 'url'],
      [{ url: 'http://example.org/hook', events: ['invite.exploded'] }, 'events'],
      [{ url: 'http://example.org/hook', events: ['invite.created', 'page.created'] }, 'events'],
      [{ url: 'http://example.org/hook', events: [] }, 'events'],
      [{ url: 'http://example.org/hook' }, 'events'],
    ];
    for (const [body, field] of cases) {
      const res = await call(server, 'POST', '/webhooks', { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect((res.body.error.fields as { field: string }[]).map((f) => f.field.split('.')[0]), JSON.stringify(body)).toContain(
        field,
      );
    }
    expect((await call(server, 'GET', '/webhooks')).body.total_items).toBe(before);
  });

  it('takes events as a form array too', async () => {
    const res = await call(server, 'POST', '/webhooks', {
      kind: 'form',
      body: { url: 'https://example.org/form', events: ['invite.created', 'invite.deleted'] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    cleanups.push(() => call(server, 'DELETE', `/webhooks/${res.body.id}`));
    expect(res.body.events).toEqual(['invite.created', 'invite.deleted']);
  });

  it('returns the secret once: GET /webhooks and GET /webhooks/{id} never show it', async () => {
    const hook = await registerWebhook(server, 'https://example.org/agora', ['invite.created', 'invite.updated']);
    expect(hook).toMatchObject({ url: 'https://example.org/agora', events: ['invite.created', 'invite.updated'] });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(hook.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const other = await registerWebhook(server, 'https://example.org/other', ['invite.created']);
    expect(other.secret).not.toBe(hook.secret);

    const one = await call(server, 'GET', `/webhooks/${hook.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: hook.id, url: hook.url, events: hook.events });
    expect(one.body).not.toHaveProperty('secret');
    const list = await call(server, 'GET', '/webhooks?per_page=100');
    expect(list.status).toBe(200);
    const listed = (list.body.items as { id: string }[]).find((h) => h.id === hook.id);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('secret');
    expect(JSON.stringify(list.body)).not.toContain(hook.secret.slice(6));
    expect(JSON.stringify(one.body)).not.toContain(hook.secret.slice(6));
  });

  it('DELETE /webhooks/{id} answers 204, then the webhook is 404', async () => {
    const res = await call(server, 'POST', '/webhooks', {
      body: { url: 'http://127.0.0.1:9/gone', events: ['invite.created'] },
    });
    expect(res.status).toBe(201);
    const id = res.body.id as string;
    const del = await call(server, 'DELETE', `/webhooks/${id}`);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await call(server, 'GET', `/webhooks/${id}`)).status).toBe(404);
    expect((await call(server, 'GET', `/webhooks/${id}/deliveries`)).status).toBe(404);
    expect((await call(server, 'DELETE', `/webhooks/${id}`)).status).toBe(404);
    const list = await call(server, 'GET', '/webhooks?per_page=100');
    expect((list.body.items as { id: string }[]).map((h) => h.id)).not.toContain(id);
  });

  describe('without AGORA_WEBHOOKS_ALLOW_PRIVATE', () => {
    it('refuses loopback and private targets with 422, and accepts a public one', async () => {
      const refused = [
        'http://127.0.0.1:8080/hook',
        'http://127.1.2.3/hook',
        'http://localhost/hook',
        'http://LOCALHOST:3000/hook',
        'http://api.localhost/hook',
        'http://localhost./hook',
        'http://10.0.0.1/hook',
        'http://172.16.5.4/hook',
        'http://192.168.1.10/hook',
        'http://169.254.169.254/latest/meta-data',
        'http://0.0.0.0/hook',
        'http://2130706433/hook', // 127.0.0.1 written as a number
        'http://[::1]/hook',
        'http://[::]/hook',
        'http://[::127.0.0.1]/hook',
        'http://[fd00::1]/hook',
        'http://[fe80::1]/hook',
        'http://[::ffff:127.0.0.1]/hook',
        'http://[::ffff:10.0.0.1]/hook',
        'https://[::ffff:192.168.0.1]:8443/hook',
      ];
      for (const url of refused) {
        const res = await call(strict, 'POST', '/webhooks', { body: { url, events: ['invite.created'] } });
        expect(res.status, url).toBe(422);
        expect(res.body.error.fields, url).toEqual([{ field: 'url', message: expect.stringMatching(/private|loopback/) }]);
      }
      expect((await call(strict, 'GET', '/webhooks')).body.total_items).toBe(0);

      const ok = await call(strict, 'POST', '/webhooks', {
        body: { url: 'https://hooks.example.com/agora', events: ['invite.created'] },
      });
      expect(ok.status, JSON.stringify(ok.body)).toBe(201);
      expect((await call(strict, 'GET', '/webhooks')).body.total_items).toBe(1);
    });
  });
});

describe('webhook delivery', () => {
  it('posts a signed create message when an access request is created', async () => {
    const r = await receiver();
    const hook = await registerWebhook(server, r.url, ['page_access_request.created']);
    const page = await privatePage(server);
    const user = await createUser(server);
    const started = Date.now();
    const request = await createAccessRequest(server, page.id, user.id);

    await r.waitFor((reqs) => about(reqs, request.id).length > 0, { timeoutMs: 5_000, what: 'the create message' });
    const [received] = about(r.requests, request.id);
    // docs/api.md: the first attempt leaves within a second of the change (measured from before the call).
    expect(received!.receivedAt - started).toBeLessThan(1_500);
    expect(received!.method).toBe('POST');
    expect(received!.path).toBe('/hook');
    expect(received!.headers['content-type']).toMatch(/^application\/json/);
    expect(received!.body).toEqual({
      id: expect.any(String),
      webhook_type: 'create',
      resource: 'page_access_request',
      data: expect.objectContaining({
        id: request.id,
        page_id: page.id,
        user_id: user.id,
        state: 'waiting',
        is_validate: false,
      }),
    });
    expect(received!.headers['webhook-id']).toBe(received!.body.id);
    expectSigned(hook.secret, received!);

    const items = await waitForDeliveries(server, hook.id, (d) => d.length === 1 && d[0]!.status === 'delivered');
    expect(items[0]).toMatchObject({
      webhook_id: hook.id,
      message_id: received!.body.id,
      event: 'page_access_request.created',
      status: 'delivered',
      attempts: 1,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
    });
    expect(items[0]!.delivered_at).not.toBeNull();
    expect(items[0]!.payload).toEqual(received!.body);
    // Exactly one POST for one change.
    expect(about(r.requests, request.id)).toHaveLength(1);
  });

  it('posts update messages when an invite is accepted or refused, destroy when it is withdrawn', async () => {
    const r = await receiver();
    const hook = await registerWebhook(server, r.url, ['invite.updated', 'invite.deleted']);
    const page = await privatePage(server);
    const accepted = await createInvite(server, page);
    const refused = await createInvite(server, page);
    const withdrawn = await createInvite(server, page);
    expect((await call(server, 'DELETE', `/invites/${withdrawn.id}`)).status).toBe(204);

    const acceptRes = await call(server, 'PUT', `/invites/${accepted.id}/accept`);
    expect(acceptRes.status, JSON.stringify(acceptRes.body)).toBe(200);
    const refuseRes = await call(server, 'PUT', `/invites/${refused.id}/refuse`);
    expect(refuseRes.status, JSON.stringify(refuseRes.body)).toBe(200);

    await r.waitFor(
      (reqs) => [accepted.id, refused.id, withdrawn.id].every((id) => about(reqs, id).length > 0),
      { what: 'the update and destroy messages' },
    );
    const [onAccept] = about(r.requests, accepted.id);
    expect(onAccept!.body).toMatchObject({
      webhook_type: 'update',
      resource: 'invite',
      data: {
        id: accepted.id,
        target_id: page.id,
        user_target_id: accepted.user_target_id,
        state: 'accepted',
        is_validate: true,
        is_accepted: true,
      },
    });
    expect(onAccept!.headers['webhook-id']).toBe(onAccept!.body.id);
    expectSigned(hook.secret, onAccept!);

    const [onRefuse] = about(r.requests, refused.id);
    expect(onRefuse!.body).toMatchObject({
      webhook_type: 'update',
      resource: 'invite',
      data: { id: refused.id, state: 'refused', is_validate: false, is_accepted: false },
    });
    expectSigned(hook.secret, onRefuse!);
    expect(onRefuse!.headers['webhook-id']).not.toBe(onAccept!.headers['webhook-id']);

    const [onDelete] = about(r.requests, withdrawn.id);
    expect(onDelete!.body).toMatchObject({
      webhook_type: 'destroy',
      resource: 'invite',
      data: { id: withdrawn.id, state: 'waiting', is_validate: null, is_accepted: false },
    });
    expectSigned(hook.secret, onDelete!);
    // The invite.created of the three invites was not subscribed: only these three arrived.
    expect(r.requests).toHaveLength(3);
  });

  it('posts update when an access request is accepted, destroy with the deleted record when refused', async () => {
    const r = await receiver();
    const hook = await registerWebhook(server, r.url, ['page_access_request.updated', 'page_access_request.deleted']);
    const page = await privatePage(server);
    const request = await createAccessRequest(server, page.id);
    const refuse = await call(server, 'PUT', `/page_access_requests/${request.id}/refuse`);
    expect(refuse.status, JSON.stringify(refuse.body)).toBe(204);
    const toAccept = await createAccessRequest(server, page.id);
    expect((await call(server, 'PUT', `/page_access_requests/${toAccept.id}/accept`)).status).toBe(200);

    await r.waitFor((reqs) => about(reqs, request.id).length > 0 && about(reqs, toAccept.id).length > 0, {
      what: 'the destroy and update messages',
    });
    const [onAccept] = about(r.requests, toAccept.id);
    expect(onAccept!.body).toMatchObject({
      webhook_type: 'update',
      resource: 'page_access_request',
      data: { id: toAccept.id, page_id: page.id, state: 'accepted', is_validate: true },
    });
    expectSigned(hook.secret, onAccept!);

    const [received] = about(r.requests, request.id);
    expect(received!.body).toMatchObject({
      webhook_type: 'destroy',
      resource: 'page_access_request',
      data: { id: request.id, page_id: page.id, user_id: request.user_id, state: 'waiting' },
    });
    expectSigned(hook.secret, received!);
    expect(r.requests).toHaveLength(2);
    const deliveries = await listDeliveries(server, hook.id);
    expect(deliveries.map((d) => d.event).sort()).toEqual(['page_access_request.deleted', 'page_access_request.updated']);
  });

  it('sends only the subscribed events', async () => {
    const inviteOnly = await receiver();
    const hook = await registerWebhook(server, inviteOnly.url, ['invite.created']);
    const page = await privatePage(server);
    // An access request (not subscribed), then an invite (subscribed) as a marker: once the invite's
    // message has arrived, the access request's would have been sent before it had there been one.
    const request = await createAccessRequest(server, page.id);
    expect((await call(server, 'PUT', `/page_access_requests/${request.id}/refuse`)).status).toBe(204);
    const invite = await createInvite(server, page);
    await inviteOnly.waitFor((reqs) => about(reqs, invite.id).length > 0, { what: 'the invite message' });
    expect(inviteOnly.requests).toHaveLength(1);
    expect(inviteOnly.requests[0]!.body).toMatchObject({ webhook_type: 'create', resource: 'invite' });
    const deliveries = await listDeliveries(server, hook.id);
    expect(deliveries.map((d) => d.event)).toEqual(['invite.created']);
  });

  it('writes deliveries with the change: a refused (409) access request creates none', async () => {
    const r = await receiver();
    const hook = await registerWebhook(server, r.url, ['page_access_request.created']);
    const page = await privatePage(server);
    const user = await createUser(server);
    const first = await createAccessRequest(server, page.id, user.id);

    // A duplicate waiting request, and 10 concurrent ones: all 409, none writes a delivery.
    const dup = await call(server, 'POST', '/page_access_requests', { body: { page_id: page.id, user_id: user.id } });
    expect(dup.status).toBe(409);
    const racing = await Promise.all(
      Array.from({ length: 10 }, () =>
        call(server, 'POST', '/page_access_requests', { body: { page_id: page.id, user_id: user.id } }),
      ),
    );
    expect(racing.map((res) => res.status)).toEqual(Array(10).fill(409));
    // A member's request: 409 too.
    const member = await call(server, 'POST', '/page_access_requests', {
      body: { page_id: page.id, user_id: page.user_id },
    });
    expect(member.status).toBe(409);

    // A marker after them all; once it is delivered, everything before it has been too.
    const marker = await createAccessRequest(server, page.id);
    await r.waitFor((reqs) => about(reqs, marker.id).length > 0, { what: 'the marker' });
    const deliveries = await waitForDeliveries(server, hook.id, (d) => d.every((x) => x.status === 'delivered'));
    expect(deliveries.map((d) => d.payload.data.id).sort()).toEqual([first.id, marker.id].sort());
    expect(r.requests.map((q) => q.body.data.id).sort()).toEqual([first.id, marker.id].sort());
  });

  it('20 concurrent identical access requests: one record, one delivery', async () => {
    const r = await receiver();
    const hook = await registerWebhook(server, r.url, ['page_access_request.created']);
    const page = await privatePage(server);
    const user = await createUser(server);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(server, 'POST', '/page_access_requests', { body: { page_id: page.id, user_id: user.id } }),
      ),
    );
    const created = results.filter((res) => res.status === 201);
    expect(created).toHaveLength(1);
    expect(results.filter((res) => res.status === 409)).toHaveLength(19);
    const marker = await createAccessRequest(server, page.id);
    await r.waitFor((reqs) => about(reqs, marker.id).length > 0, { what: 'the marker' });
    const deliveries = await listDeliveries(server, hook.id);
    expect(deliveries.map((d) => d.payload.data.id).sort()).toEqual([created[0]!.body.id, marker.id].sort());
  });
});

describe('webhook retries and redelivery', () => {
  it('delivers on a retry when the receiver answers 500 then 200', async () => {
    const r = await receiver();
    r.plan('fail');
    const hook = await registerWebhook(server, r.url, ['page_access_request.created']);
    const page = await privatePage(server);
    const request = await createAccessRequest(server, page.id);

    await r.waitFor((reqs) => about(reqs, request.id).length >= 2, { what: 'the retry' });
    const [first, second] = about(r.requests, request.id);
    expect(first!.behaviour).toBe('fail');
    expect(second!.behaviour).toBe('ok');
    // The same message, signed again; the retry waited for the schedule (1 s, ±20 %).
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.rawBody).toBe(first!.rawBody);
    expectSigned(hook.secret, second!);
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(700);

    const [delivery] = await waitForDeliveries(server, hook.id, (d) => d[0]?.status === 'delivered');
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 2, last_status_code: 200, last_error: null });
    expect(about(r.requests, request.id)).toHaveLength(2);
  });

  it('marks a delivery failed after the last retry when the receiver always answers 500', async () => {
    const r = await receiver('fail');
    const hook = await registerWebhook(server, r.url, ['page_access_request.created']);
    const page = await privatePage(server);
    await createAccessRequest(server, page.id);

    const pending = await waitForDeliveries(server, hook.id, (d) => d[0]?.attempts === 1);
    expect(pending[0]).toMatchObject({ status: 'pending', last_status_code: 500 });
    expect(pending[0]!.last_error).toMatch(/500/);
    expect(pending[0]!.next_attempt_at).not.toBeNull();

    const [delivery] = await waitForDeliveries(server, hook.id, (d) => d[0]?.status === 'failed', 15_000);
    expect(delivery).toMatchObject({
      status: 'failed',
      attempts: 3,
      last_status_code: 500,
      delivered_at: null,
      next_attempt_at: null,
    });
    expect(delivery!.last_error).toMatch(/500/);
    expect(r.requests).toHaveLength(3);
    expect(new Set(r.requests.map((q) => q.headers['webhook-id'])).size).toBe(1);
  });

  it("stops a pending delivery's retries when it is redelivered: the message is sent once more, not twice", async () => {
    const r = await receiver();
    r.plan('fail');
    const hook = await registerWebhook(server, r.url, ['page_access_request.created']);
    const page = await privatePage(server);
    const request = await createAccessRequest(server, page.id);
    const [original] = await waitForDeliveries(server, hook.id, (d) => d[0]?.attempts === 1);
    expect(original).toMatchObject({ status: 'pending' });
    const res = await call(server, 'POST', `/webhook_deliveries/${original!.id}/redeliver`);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const deliveries = await waitForDeliveries(server, hook.id, (d) => d.find((x) => x.id === res.body.id)?.status === 'delivered');
    expect(deliveries.find((d) => d.id === original!.id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      next_attempt_at: null,
      last_error: `superseded by the redelivery ${res.body.id}`,
    });
    // Past the original's retry (1 s, ±20 %): nothing more came.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(about(r.requests, request.id).map((q) => q.behaviour)).toEqual(['fail', 'ok']);
  });

  it('redelivers: 202 and a new delivery of the same message (same webhook-id)', async () => {
    const r = await receiver();
    const hook = await registerWebhook(server, r.url, ['page_access_request.created']);
    const page = await privatePage(server);
    const request = await createAccessRequest(server, page.id);
    const [original] = await waitForDeliveries(server, hook.id, (d) => d[0]?.status === 'delivered');

    const res = await call(server, 'POST', `/webhook_deliveries/${original!.id}/redeliver`);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({
      webhook_id: hook.id,
      message_id: original!.message_id,
      event: 'page_access_request.created',
      status: 'pending',
      attempts: 0,
    });
    expect(res.body.id).not.toBe(original!.id);

    await r.waitFor((reqs) => about(reqs, request.id).length >= 2, { what: 'the redelivery' });
    const [first, again] = about(r.requests, request.id);
    expect(again!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(again!.headers['webhook-id']).toBe(original!.message_id);
    expect(again!.body).toEqual(first!.body);
    expectSigned(hook.secret, again!);

    const deliveries = await waitForDeliveries(server, hook.id, (d) => d.length === 2 && d.every((x) => x.status === 'delivered'));
    // Newest first.
    expect(deliveries.map((d) => d.id)).toEqual([res.body.id, original!.id]);
    expect(new Set(deliveries.map((d) => d.message_id))).toEqual(new Set([original!.message_id]));
    // The original is left as it was.
    expect(deliveries.find((d) => d.id === original!.id)).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('redeliver: 404 for an unknown delivery, 403 for a Member', async () => {
    const r = await receiver();
    const hook = await registerWebhook(server, r.url, ['page_access_request.created']);
    await createAccessRequest(server, (await privatePage(server)).id);
    const [delivery] = await waitForDeliveries(server, hook.id, (d) => d[0]?.status === 'delivered');
    expect((await call(server, 'POST', `/webhook_deliveries/${'0'.repeat(32)}/redeliver`)).status).toBe(404);
    const creds = await member();
    expect((await call(server, 'POST', `/webhook_deliveries/${delivery!.id}/redeliver`, { as: creds })).status).toBe(403);
    expect(await listDeliveries(server, hook.id)).toHaveLength(1);
  });
});

describe('webhook durability', () => {
  it('delivers after a restart what was pending when the server stopped', async () => {
    const r = await receiver('fail');
    let first: RunningServer | undefined = await startServer({
      env: { ...ALLOW_PRIVATE, AGORA_WEBHOOK_RETRY_SCHEDULE: '3' },
    });
    let second: RunningServer | undefined;
    try {
      const hook = await registerWebhook(first, r.url, ['page_access_request.created']);
      cleanups.pop(); // the webhook goes with the server's directory
      const config = await createPageConfiguration(first);
      const page = await privatePage(first, config.id);
      const request = await createAccessRequest(first, page.id);

      // The first attempt fails; its retry is due about 3 s later. Stop before then.
      const [pending] = await waitForDeliveries(first, hook.id, (d) => d[0]?.attempts === 1, 5_000);
      expect(pending).toMatchObject({ status: 'pending', last_status_code: 500 });
      expect(await first.stop('SIGTERM')).toBe(0);
      const dir = first.dir;
      first = undefined;
      expect(about(r.requests, request.id)).toHaveLength(1);

      r.setDefault('ok');
      second = await startServer({ env: { ...ALLOW_PRIVATE, AGORA_WEBHOOK_RETRY_SCHEDULE: '3' }, dir });
      await r.waitFor((reqs) => about(reqs, request.id).length >= 2, { timeoutMs: 10_000, what: 'the delivery after restart' });
      const [before, after] = about(r.requests, request.id);
      expect(after!.behaviour).toBe('ok');
      expect(after!.headers['webhook-id']).toBe(before!.headers['webhook-id']);
      expectSigned(hook.secret, after!);
      const [delivered] = await waitForDeliveries(second, hook.id, (d) => d[0]?.status === 'delivered');
      expect(delivered).toMatchObject({ id: pending!.id, attempts: 2, last_status_code: 200 });
      expect(about(r.requests, request.id)).toHaveLength(2);
    } finally {
      await first?.stop();
      await second?.stop();
      removeDir((second ?? first)?.dir ?? '');
    }
  });
});

describe('a hanging receiver', () => {
  it('does not hold the API, nor the deliveries to other receivers; its deliveries time out', async () => {
    // `slow`: timeout 3 s, 10 attempts in flight at most.
    const r = await receiver('hang');
    const healthy = await receiver('ok');
    const hook = await registerWebhook(slow, r.url, ['page_access_request.created']);
    const other = await registerWebhook(slow, healthy.url, ['page_access_request.created', 'page_access_request.updated']);
    const config = await createPageConfiguration(slow);
    const owner = await createUser(slow);
    const page = await createPage(slow, { user_id: owner.id, page_configuration_id: config.id, privacy: 'private' });
    const users = await Promise.all(Array.from({ length: 10 }, () => createUser(slow)));

    const timings: number[] = [];
    const changedAt = new Map<string, number>();
    const ids: string[] = [];
    for (const user of users) {
      const started = performance.now();
      changedAt.set(`create ${ids.length}`, Date.now());
      const res = await call(slow, 'POST', '/page_access_requests', { body: { page_id: page.id, user_id: user.id } });
      timings.push(performance.now() - started);
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    // The sender is stuck on the hanging receiver meanwhile.
    await r.waitFor((reqs) => reqs.length >= 1, { timeoutMs: 3_000, what: 'the hanging attempt' });
    for (const path of ['/webhooks', `/webhooks/${hook.id}/deliveries`, `/pages/${page.id}/page_access_requests`]) {
      const started = performance.now();
      expect((await call(slow, 'GET', path)).status).toBe(200);
      timings.push(performance.now() - started);
    }
    const acceptStarted = performance.now();
    const acceptedAt = Date.now();
    expect((await call(slow, 'PUT', `/page_access_requests/${ids[0]}/accept`)).status).toBe(200);
    timings.push(performance.now() - acceptStarted);
    // Held behind the hanging attempt, a call would wait out most of its 3 s timeout (the second request
    // starts just after the attempt does); on its own, a call takes milliseconds, or over a second only on a
    // loaded machine (1.55 s seen on PostgreSQL there). The bound tells the two apart with room for the load.
    const HELD = 2_500;
    for (const t of timings) expect(t).toBeLessThan(HELD);

    // The other receiver hears of every change within about a second (docs/api.md: the first attempt
    // leaves within a second), though the hanging one holds as many attempts as it can: not held for the
    // hanging attempt's timeout (the same bound).
    await healthy.waitFor((reqs) => reqs.length >= 11, { timeoutMs: 5_000, what: 'the healthy deliveries' });
    ids.forEach((id, i) => {
      const [created] = healthy.requests.filter((q) => q.body.data.id === id && q.body.webhook_type === 'create');
      expect(created!.receivedAt - changedAt.get(`create ${i}`)!, `create ${i}`).toBeLessThan(HELD);
    });
    const [update] = healthy.requests.filter((q) => q.body.webhook_type === 'update');
    expect(update!.body.data).toMatchObject({ id: ids[0], state: 'accepted' });
    expect(update!.receivedAt - acceptedAt).toBeLessThan(HELD);
    expectSigned(other.secret, update!);

    // One attempt at a time to the hanging receiver: the next leaves only when the previous one has given up
    // at the timeout, and is recorded as such.
    // (Seen at the receiver: the first may arrive late on a loaded machine, 2.8 s apart seen in a suite run beside
    // another, so the gap is bounded as the calls above are; attempts side by side would arrive together.)
    const [first, second] = await r.waitFor((reqs) => reqs.length >= 2, { timeoutMs: 8_000, what: 'a second attempt' });
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(HELD);
    const deliveries = await waitForDeliveries(slow, hook.id, (d) => d.some((x) => x.attempts >= 1), 5_000);
    expect(deliveries).toHaveLength(10);
    for (const d of deliveries.filter((x) => x.attempts >= 1)) {
      expect(d.status).not.toBe('delivered');
      expect(d.last_status_code).toBeNull();
      expect(d.last_error).toMatch(/no answer|time/i);
      // The attempt gave up at the timeout, not before.
      expect(Date.parse(d.last_attempt_at!) - Date.parse(d.created_at)).toBeGreaterThanOrEqual(2_900);
    }
    expect(new Set(deliveries.map((d) => d.payload.data.id))).toEqual(new Set(ids));
  });
});
