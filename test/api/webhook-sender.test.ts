import { afterEach, describe, expect, it } from 'vitest';
import { isPrivateAddress, refuseWebhookUrl } from '../../src/domain/webhook-targets.js';
import { newDelivery } from '../../src/domain/webhooks.js';
import { newId } from '../../src/shared/ids.js';
import { startApp, testClock, type TestApp } from '../helpers/app.js';
import { removeDir } from '../helpers/server.js';
import { startReceiver, type Behaviour, type Receiver } from '../helpers/receiver.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function app(options: Parameters<typeof startApp>[0]): Promise<TestApp> {
  const started = await startApp(options);
  cleanups.push(async () => {
    await started.close();
    removeDir(started.dir);
  });
  return started;
}

async function receiver(behaviour: Behaviour): Promise<Receiver> {
  const r = await startReceiver(behaviour);
  cleanups.push(() => r.close());
  return r;
}

/** A webhook to `url` straight in the store (as if its name had resolved elsewhere when registered). */
async function addWebhook(api: TestApp, url: string): Promise<string> {
  const id = newId();
  const now = new Date().toISOString();
  await api.store.webhooks.insert({
    id,
    url,
    events: '["invite.created"]',
    secret: 'whsec_c2VjcmV0',
    user_id: api.admin.id,
    created_at: now,
    updated_at: now,
    consecutive_failures: 0,
    circuit_open_until: null,
  });
  return id;
}

/** A delivery due now, for the webhook (made as the outbox makes them). */
async function addDelivery(api: TestApp, webhookId: string, now: string): Promise<string> {
  const id = newId();
  const payload = JSON.stringify({ id, webhook_type: 'create', resource: 'invite', data: { id } });
  await api.store.deliveries.insert(newDelivery({ webhook_id: webhookId, message_id: id, event: 'invite.created', payload }, now, id));
  return id;
}

async function until<T>(read: () => Promise<T>, holds: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (holds(value)) return value;
    if (Date.now() > deadline) throw new Error(`never held; last: ${JSON.stringify(value)}`);
    await new Promise((ok) => setTimeout(ok, 25));
  }
}

describe('the circuit breaker', () => {
  it('opens after 5 failures in a row, is shown by GET /webhooks/{id}, and closes after a success', async () => {
    const clock = testClock();
    const api = await app({
      clock,
      webhooks: { allowPrivate: true, retrySchedule: Array(10).fill(0), pollMs: 20 },
    });
    const r = await receiver('fail');
    const hook = await addWebhook(api, r.url);
    const delivery = await addDelivery(api, hook, clock().toISOString());
    await r.waitFor((reqs) => reqs.length >= 5, { what: 'five failed attempts' });
    const opened = await until(
      () => api.call('GET', `/webhooks/${hook}`),
      (res) => res.body.circuit.state === 'open',
    );
    expect(opened.body.circuit).toEqual({
      state: 'open',
      consecutive_failures: 5,
      open_until: new Date(clock().getTime() + 60_000).toISOString(),
    });
    // While open, the webhook is not looked at, though its delivery's own retry is due.
    const now = clock().toISOString();
    expect((await api.store.deliveries.getById(delivery))!.next_attempt_at <= now).toBe(true);
    expect((await api.store.webhooks.deliverable(now)).map((h) => h.id)).not.toContain(hook);
    expect(r.requests).toHaveLength(5);

    r.setDefault('ok');
    clock.advance(61_000);
    const delivered = await until(
      () => api.call('GET', `/webhooks/${hook}/deliveries`),
      (res) => res.body.items[0].status === 'delivered',
    );
    expect(delivered.body.items[0].attempts).toBe(6);
    expect((await api.call('GET', `/webhooks/${hook}`)).body.circuit).toEqual({
      state: 'closed',
      consecutive_failures: 0,
      open_until: null,
    });
  });
});

describe('fairness', () => {
  it('keeps one attempt in flight per webhook: three hanging receivers never delay a healthy first attempt', async () => {
    // The real clock: this test measures how soon an attempt leaves.
    const api = await app({ clock: () => new Date(), webhooks: { allowPrivate: true, timeoutMs: 3_000, pollMs: 50 } });
    const hanging = await Promise.all([1, 2, 3].map(() => receiver('hang')));
    const healthy = await receiver('ok');
    const now = new Date().toISOString();
    for (const r of hanging) {
      const hook = await addWebhook(api, r.url);
      for (let i = 0; i < 4; i += 1) await addDelivery(api, hook, now);
    }
    await Promise.all(hanging.map((r) => r.waitFor((reqs) => reqs.length >= 1)));
    const healthyHook = await addWebhook(api, healthy.url);
    const started = Date.now();
    await addDelivery(api, healthyHook, new Date().toISOString());
    const [received] = await healthy.waitFor((reqs) => reqs.length >= 1, { timeoutMs: 2_000 });
    // docs/api.md: the first attempt leaves within a second (the sender polls every 50 ms here).
    expect(received!.receivedAt - started).toBeLessThan(1_000);
    for (const r of hanging) expect(r.requests).toHaveLength(1);
  });
});

describe('redelivering a pending delivery', () => {
  /** The message's deliveries still pending (to be sent again). */
  const pending = (api: TestApp, messageId: string) =>
    api.store.db.selectFrom('webhook_deliveries').select('id').where('message_id', '=', messageId).where('status', '=', 'pending').execute();
  /**
   * A delivery whose receiver failed once, its retry scheduled a second ahead on a test clock that stands still: the
   * sender tries nothing more of it on its own.
   */
  const failedOnce = async () => {
    const clock = testClock();
    const api = await app({ clock, webhooks: { allowPrivate: true, retrySchedule: [1, 1], pollMs: 20 } });
    const r = await receiver('fail');
    const hook = await addWebhook(api, r.url);
    const original = await addDelivery(api, hook, clock().toISOString());
    await until(() => api.store.deliveries.getById(original), (d) => d?.attempts === 1);
    return { api, r, hook, original };
  };

  it("stops the original's scheduled retry in the redelivery's transaction: one pending attempt, the message sent once more", async () => {
    const { api, r, hook, original } = await failedOnce();
    expect(await pending(api, original)).toEqual([{ id: original }]);
    r.setDefault('ok');
    const res = await api.call('POST', `/webhook_deliveries/${original}/redeliver`);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect((await pending(api, original)).map((d) => d.id)).not.toContain(original);
    await until(() => api.store.deliveries.getById(res.body.id), (d) => d?.status === 'delivered');
    expect(await pending(api, original)).toEqual([]);
    const [, shown] = (await api.call('GET', `/webhooks/${hook}/deliveries`)).body.items;
    expect(shown).toMatchObject({ id: original, status: 'failed', attempts: 1, next_attempt_at: null, last_error: `superseded by the redelivery ${res.body.id}` });
    expect(r.requests.map((q) => q.behaviour)).toEqual(['fail', 'ok']);
  });

  it('stops an earlier redelivery still pending too: redelivered twice, the message is pending once', async () => {
    const { api, r, original } = await failedOnce();
    const first = await api.call('POST', `/webhook_deliveries/${original}/redeliver`);
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    // The first redelivery failed too, its retry scheduled (the test clock stands still).
    await until(() => api.store.deliveries.getById(first.body.id), (d) => d?.attempts === 1);
    r.setDefault('ok');
    const second = await api.call('POST', `/webhook_deliveries/${original}/redeliver`);
    expect(second.status, JSON.stringify(second.body)).toBe(202);
    expect(await pending(api, original)).toEqual([{ id: second.body.id }]);
    expect(await api.store.deliveries.getById(first.body.id)).toMatchObject({ status: 'failed', last_error: `superseded by the redelivery ${second.body.id}` });
    await until(() => api.store.deliveries.getById(second.body.id), (d) => d?.status === 'delivered');
    expect(r.requests.map((q) => q.behaviour)).toEqual(['fail', 'fail', 'ok']);
  });

  it('takes concurrent redeliveries of one message in turn, of one delivery or of several: the message is pending once', async () => {
    const { api, original } = await failedOnce();
    const first = await api.call('POST', `/webhook_deliveries/${original}/redeliver`);
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    // The sender held back (a receiver that fails, a clock standing still): only the redeliveries write.
    const ids = [original, first.body.id, original, first.body.id, original, first.body.id];
    const answers = await Promise.all(ids.map((id) => api.call('POST', `/webhook_deliveries/${id}/redeliver`)));
    for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(202);
    const stillPending = (await pending(api, original)).map((d) => d.id);
    expect(stillPending).toHaveLength(1);
    expect(answers.map((res) => res.body.id)).toContain(stillPending[0]);
  });

  it('keeps the original stopped when its attempt was in flight and fails after the redelivery', async () => {
    const clock = testClock();
    const api = await app({ clock, webhooks: { allowPrivate: true, retrySchedule: [1, 1], timeoutMs: 500, pollMs: 20 } });
    const r = await receiver('hang');
    const hook = await addWebhook(api, r.url);
    const original = await addDelivery(api, hook, clock().toISOString());
    await r.waitFor((reqs) => reqs.length === 1, { what: "the original's attempt" });
    r.setDefault('ok');
    // Redelivered while the original's attempt hangs; that attempt then times out (a failure to be retried).
    const res = await api.call('POST', `/webhook_deliveries/${original}/redeliver`);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    // One attempt in flight per webhook: the redelivery goes once the original's attempt is recorded.
    await until(() => api.store.deliveries.getById(res.body.id), (d) => d?.status === 'delivered');
    expect(await pending(api, original)).toEqual([]);
    expect(await api.store.deliveries.getById(original)).toMatchObject({ status: 'failed', last_error: `superseded by the redelivery ${res.body.id}` });
    expect(r.requests.map((q) => q.behaviour)).toEqual(['hang', 'ok']);
  });
});

describe('private targets', () => {
  it('refuse NAT64, 6to4, Teredo and the documentation ranges as private', () => {
    for (const address of ['64:ff9b::a00:1', '64:ff9b::7f00:1', '2002:7f00:1::', '2001:0:4136:e378::1', '2001:db8::1', '192.0.2.1', '198.51.100.7', '203.0.113.200'])
      expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']) expect(isPrivateAddress(address), address).toBe(false);
    expect(refuseWebhookUrl('http://[64:ff9b::a00:1]/hook', false)).toMatch(/private/);
    expect(refuseWebhookUrl('http://203.0.113.5/hook', false)).toMatch(/private/);
  });

  it('fail a delivery at once, without retries, when the receiver resolves to a private address', async () => {
    const api = await app({ clock: () => new Date(), webhooks: { allowPrivate: false, pollMs: 20 } });
    const r = await receiver('ok');
    const hook = await addWebhook(api, r.url.replace('127.0.0.1', 'localhost'));
    const id = await addDelivery(api, hook, new Date().toISOString());
    const failed = await until(() => api.store.deliveries.getById(id), (d) => d?.status === 'failed');
    expect(failed).toMatchObject({ attempts: 1, last_status_code: null, last_error: expect.stringMatching(/private/) });
    expect(r.requests).toHaveLength(0);
  });
});
