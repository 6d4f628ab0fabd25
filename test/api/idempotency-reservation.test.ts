import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { removeDir } from '../helpers/server.js';

/**
 * An Idempotency-Key is reserved by a row before the request acts (so that requests racing in several
 * processes act once). What the row says decides: answered → replay; reserved by a request still acting →
 * wait for its answer; reserved by a request whose process died (over a minute ago) → take it over and act.
 * The reservation row is set by hand here to stand for another process.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

const configCount = async () => (await t.call('GET', '/page_configurations')).body.total_items as number;

/** Makes the key's row look reserved by a request still acting (or one that died), keeping its request hash. */
const markPending = (key: string, reservedAt: string) =>
  t.store.db
    .updateTable('idempotency_keys')
    .set({ status_code: 0, response_body: '', created_at: reservedAt })
    .where('user_id', '=', t.admin.id)
    .where('idempotency_key', '=', key)
    .execute();

describe('Idempotency-Key reservations', () => {
  it('waits for the answer of a request holding the key, then answers it without acting', async () => {
    const key = `wait-${Date.now()}`;
    const body = { name: `Waited ${key}` };
    const first = await t.call('POST', '/page_configurations', { body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    const reservedAt = t.clock().toISOString();
    await markPending(key, reservedAt);
    const before = await configCount();

    let answered = false;
    const waiting = t.call('POST', '/page_configurations', { body, headers: { 'idempotency-key': key } }).finally(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false);
    // The holder answers (as another process would, through its reservation).
    await t.store.idempotency.complete(t.admin.id, key, reservedAt, 201, JSON.stringify(first.body));
    const replay = await waiting;
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(await configCount()).toBe(before);
  });

  it('takes over a reservation left unanswered for over a minute (its process died) and acts once', async () => {
    const key = `stale-${Date.now()}`;
    const body = { name: `Taken over ${key}` };
    expect((await t.call('POST', '/page_configurations', { body, headers: { 'idempotency-key': key } })).status).toBe(201);
    await markPending(key, new Date(t.clock().getTime() - 61_000).toISOString());
    const before = await configCount();
    const res = await t.call('POST', '/page_configurations', { body, headers: { 'idempotency-key': key } });
    expect(res.status).toBe(201);
    expect(await configCount()).toBe(before + 1);
    // Its answer is now the key's: the next one replays it.
    const again = await t.call('POST', '/page_configurations', { body, headers: { 'idempotency-key': key } });
    expect(again.body).toEqual(res.body);
    expect(await configCount()).toBe(before + 1);
  });

  it('gives the key back when the request fails, so that a corrected retry acts', async () => {
    const key = `failed-${Date.now()}`;
    const page = { name: 'Nowhere', privacy: 'public', page_configuration_id: '0'.repeat(32), user_id: t.admin.id };
    expect((await t.call('POST', '/pages', { body: page, headers: { 'idempotency-key': key } })).status).toBe(404);
    expect(await t.store.idempotency.get(t.admin.id, key)).toBeUndefined();
    const again = await t.call('POST', '/pages', { body: page, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(404);
  });

  it('compares bodies without their password: none is kept, not even as a digest', async () => {
    const key = `password-${Date.now()}`;
    const tag = Date.now().toString(36);
    const body = {
      first_name: 'Kept',
      last_name: 'Out',
      nickname: `kept_${tag}`,
      email: `kept_${tag}@example.org`,
      password: 'firstPass123',
      accept_conditions: true,
      accept_confidentiality: true,
    };
    const first = await t.call('POST', '/users', { body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    // The stored digest is the same whatever the password: the same request again, answered by a replay.
    const again = await t.call('POST', '/users', { body: { ...body, password: 'otherPass456' }, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    // Any other field still makes it another request.
    const other = await t.call('POST', '/users', { body: { ...body, last_name: 'Other' }, headers: { 'idempotency-key': key } });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
  });
  it('takes the same fields in another order, at every depth, for the same request: replayed, not refused', async () => {
    const key = `order-${Date.now()}`;
    const event = {
      name: `Ordered ${key}`,
      user_id: t.admin.id,
      start_date: '2030-01-01T10:00:00.000Z',
      end_date: '2030-01-01T12:00:00.000Z',
      tickets: [{ name: 'Entry', price: '5.00', currency: 'EUR' }],
    };
    // The same JSON with its keys reversed, in the tickets' objects too (an array keeps its order).
    const reversed = (value: object) => Object.fromEntries(Object.entries(value).reverse());
    const reordered = reversed({ ...event, tickets: event.tickets.map(reversed) });
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(event));
    const first = await t.call('POST', '/events', { body: event, headers: { 'idempotency-key': key } });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const again = await t.call('POST', '/events', { body: reordered, headers: { 'idempotency-key': key } });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    // Another value is still another request, in whatever order.
    const tickets = [reversed({ ...event.tickets[0]!, price: '6.00' })];
    const other = await t.call('POST', '/events', { body: { ...reordered, tickets }, headers: { 'idempotency-key': key } });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
  });
});
