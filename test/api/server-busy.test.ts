import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import { onPostgres, withClient } from '../helpers/store-target.js';
import { TRANSACTION_ATTEMPTS as ATTEMPTS } from '../../src/store/retried.js';

/**
 * A transaction that still loses its race after the last of its attempts (src/store/retried.ts) is a 503
 * `server_busy` with Retry-After (docs/api.md, "Errors"; app.ts's mapping), and leaves nothing behind. The
 * database itself loses here: a trigger on `follows` raises PostgreSQL's deadlock (40P01) or serialization failure
 * (40001) on the insert an acceptance writes last, after its request's state, webhook delivery, audit entry and
 * notification.
 */
const logged: Record<string, any>[] = [];
const t = useApp({
  webhooks: { allowPrivate: true, concurrency: 0 },
  logStream: { write: (line) => void logged.push(JSON.parse(line)) },
});

/** SQL on the app's own schema (its URL carries the search_path). */
const onSchema = (sql: string) => withClient((client) => client.query(sql), t.file);

/** Every insert into `follows` fails with `code`; `tries` counts the tries (nextval is not rolled back). */
const failFollows = (code: string) =>
  onSchema(`
    create sequence if not exists tries;
    create or replace function fail_follow() returns trigger language plpgsql as $$
    begin
      perform nextval('tries');
      raise exception 'failed on purpose' using errcode = '${code}';
    end $$;
    drop trigger if exists fail_follow on follows;
    create trigger fail_follow before insert on follows for each row execute function fail_follow()`);
const tries = async () => Number((await onSchema('select case when is_called then last_value else 0 end as n from tries')).rows[0].n);

describe.skipIf(!onPostgres)('a race lost after every retry [runs with AGORA_TEST_DB]', () => {
  it('is a 503 server_busy with Retry-After, retried, leaving nothing; a client mistake stays a 4xx; without the loss it passes', async () => {
    const [owner, asker] = [await t.member(), await t.member()];
    const config = await t.ok('POST', '/page_configurations', undefined, { name: 'Busy config' });
    const page = await t.ok('POST', '/pages', owner, { name: 'Busy Circle', page_configuration_id: config.id, privacy: 'private', user_id: owner.user.id });
    const hook = await t.ok('POST', '/webhooks', undefined, { url: 'http://127.0.0.1:9/hook', events: ['page_access_request.updated'] });
    const request = await t.ok('POST', '/page_access_requests', asker, { page_id: page.id, user_id: asker.user.id });
    const accept = (as = owner.creds, id = request.id) => t.call('PUT', `/page_access_requests/${id}/accept`, { as });

    // What an acceptance leaves: the request accepted, a delivery, an audit entry, the asker told, the follow.
    const left = async () => ({
      state: (await t.ok('GET', `/page_access_requests?page_id=${page.id}&user_id=${asker.user.id}`)).items.map((r: { state: string }) => r.state).join(),
      deliveries: (await t.ok('GET', `/webhooks/${hook.id}/deliveries`)).total_items,
      audited: (await t.ok('GET', `/audit_log?action=page_access_request.accept&target_id=${request.id}`)).total_items,
      told: Number((await t.call('GET', `/users/${asker.user.id}/notifications`)).headers['x-total-count']),
      follows: (await t.ok('GET', `/follows?followable_type=Page&followable_id=${page.id}&user_id=${asker.user.id}`)).total_items,
    });
    const before = { state: 'waiting', deliveries: 0, audited: 0, told: 0, follows: 0 };
    expect(await left()).toEqual(before);

    let tried = 0;
    for (const code of ['40P01', '40001']) {
      await failFollows(code);
      const busy = await accept();
      expect(busy.status, `${code}: ${JSON.stringify(busy.body)}`).toBe(503);
      expect(busy.body).toEqual({ error: { code: 'server_busy', message: expect.any(String), request_id: busy.headers['x-request-id'] } });
      expect(busy.body.error.request_id).toMatch(/^[0-9a-f]{32}$/);
      expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(await tries(), `${code}: the transaction run again until its last attempt`).toBe((tried += ATTEMPTS));
      // Not a fault: one warning (level 40) naming the route and the cause, without a stack.
      const said = logged.filter((line) => line.reqId === busy.headers['x-request-id']);
      expect(said, `${code}: its line in the log`).toEqual([
        expect.objectContaining({
          level: 40,
          sqlstate: code,
          msg: `server busy on PUT /public-api/v1/page_access_requests/:id/accept: failed on purpose (${code}) on each of ${ATTEMPTS} attempts`,
        }),
      ]);
      expect(Object.keys(said[0]!), `${code}: no error object, no stack`).not.toContain('err');
      expect(await left(), `${code}: nothing of the lost attempts stayed`).toEqual(before);
    }

    // A client's mistake on the same route, the trigger still there: its 4xx, never a 503 nor a 500.
    const byAsker = await accept(asker.creds);
    expect(byAsker.status, JSON.stringify(byAsker.body)).toBe(403);
    const unknown = await accept(owner.creds, '0'.repeat(32));
    expect(unknown.status, JSON.stringify(unknown.body)).toBe(404);
    // Any other failure of the database is ours: tried once, a 500 that shows nothing of it.
    await failFollows('P0001');
    const failed = await accept();
    expect(failed.status, JSON.stringify(failed.body)).toBe(500);
    expect(failed.body.error.code).toBe('internal_error');
    expect(failed.headers['retry-after']).toBeUndefined();
    const fault = logged.filter((line) => line.reqId === failed.headers['x-request-id']);
    expect(fault, 'a fault is an error, with its stack').toEqual([expect.objectContaining({ level: 50, msg: 'request failed' })]);
    expect(fault[0]!.err.stack).toContain('failed on purpose');
    expect(await tries(), 'refusals write nothing; a failure that is no race is not tried again').toBe(tried + 1);
    expect(await left()).toEqual(before);

    await onSchema('drop trigger fail_follow on follows');
    const accepted = await accept();
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body).toMatchObject({ id: request.id, state: 'accepted', is_validate: true });
    expect(await left()).toEqual({ state: 'accepted', deliveries: 1, audited: 1, told: 1, follows: 1 });
    expect((await accept()).status, 'accepted twice').toBe(409);
  });
});
