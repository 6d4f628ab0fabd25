import { beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/domain/api-keys.js';
import { useApp, type Answer } from '../helpers/app.js';
import { HEX_ID } from '../helpers/api.js';
import { onPostgres, openRaw } from '../helpers/store-target.js';
import type { AuditEntry } from '../../src/shared/schemas/audit.js';

/** GET /audit_log and the entry every administrative change writes in its own transaction (docs/api.md). */

const statements: string[] = [];
const t = useApp({ webhooks: { allowPrivate: true }, storeOptions: { onQuery: (sql) => statements.push(sql) } });

type Entry = AuditEntry;
type Member = Awaited<ReturnType<typeof t.member>>;

let configId: string;
let ada: Member;
let linus: Member;
let bookCircle: string;

const entriesFor = async (targetId: string): Promise<Entry[]> => {
  const res = await t.call('GET', `/audit_log?target_id=${targetId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items;
};

/** The change answered as expected, and wrote exactly one entry, naming the request that made it. */
async function expectOneEntry(answer: Answer, status: number, targetId: string, expected: Partial<Entry>, actorId = t.admin.id) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  const entries = (await entriesFor(targetId)).filter((e) => e.action === expected.action);
  expect(entries).toHaveLength(1);
  expect(entries[0]).toMatchObject({ actor_id: actorId, request_id: answer.headers['x-request-id'], ...expected });
  expect(entries[0]!.id).toMatch(HEX_ID);
}

beforeAll(async () => {
  configId = (await t.call('POST', '/page_configurations', { body: { name: 'Clubs' } })).body.id;
  ada = await t.member({ nickname: 'ada' });
  linus = await t.member({ nickname: 'linus' });
  const page = await t.call('POST', '/pages', {
    as: ada.creds,
    body: { name: 'Book Circle', page_configuration_id: configId, privacy: 'private', user_id: ada.user.id },
  });
  bookCircle = page.body.id;
});

const ask = async (who: Member) =>
  (await t.call('POST', '/page_access_requests', { as: who.creds, body: { page_id: bookCircle, user_id: who.user.id } })).body.id as string;
const inviteTo = async (who: Member) =>
  (
    await t.call('POST', '/invites', {
      as: ada.creds,
      body: { target_type: 'Page', target_id: bookCircle, user_id: ada.user.id, user_target_ids: [who.user.id] },
    })
  ).body.success[0].id as string;

describe('one entry per administrative act', () => {
  it('access requests accepted and refused, by the page creator', async () => {
    const first = await ask(linus);
    await expectOneEntry(
      await t.call('PUT', `/page_access_requests/${first}/accept`, { as: ada.creds, headers: { 'x-request-id': 'moderation-42' } }),
      200,
      first,
      { action: 'page_access_request.accept', target_type: 'page_access_request', summary: "accepted linus's request to join Book Circle", request_id: 'moderation-42' },
      ada.user.id,
    );
    const grace = await t.member({ nickname: 'grace' });
    const second = await ask(grace);
    await expectOneEntry(await t.call('PUT', `/page_access_requests/${second}/refuse`), 204, second, {
      action: 'page_access_request.refuse',
      summary: "refused grace's request to join Book Circle",
    });
  });

  it('invites accepted, refused and withdrawn', async () => {
    const [x, y, z] = await Promise.all([t.member(), t.member(), t.member()]);
    const accepted = await inviteTo(x);
    await expectOneEntry(await t.call('PUT', `/invites/${accepted}/accept`), 200, accepted, {
      action: 'invite.accept',
      target_type: 'invite',
      summary: `accepted the invite of ${x.user.nickname} to Book Circle`,
    });
    const refused = await inviteTo(y);
    await expectOneEntry(await t.call('PUT', `/invites/${refused}/refuse`, { as: ada.creds }), 200, refused, {
      action: 'invite.refuse',
      summary: `refused the invite of ${y.user.nickname} to Book Circle`,
    }, ada.user.id);
    const withdrawn = await inviteTo(z);
    await expectOneEntry(await t.call('DELETE', `/invites/${withdrawn}`, { as: ada.creds }), 204, withdrawn, {
      action: 'invite.withdraw',
      summary: `withdrew the invite of ${z.user.nickname} to Book Circle`,
    }, ada.user.id);
  });

  it('roles created, updated, deleted, and a user\'s role changed', async () => {
    const created = await t.call('POST', '/permission_sets', { body: { name: 'Moderators' } });
    const id = created.body.id;
    await expectOneEntry(created, 201, id, { action: 'permission_set.create', target_type: 'permission_set', summary: 'created the role Moderators' });
    await expectOneEntry(
      await t.call('PUT', `/permission_sets/${id}`, { body: { name: 'Stewards', permissions: { users: { index: true } } } }),
      200,
      id,
      { action: 'permission_set.update', summary: 'updated the role Moderators (now Stewards): name, permissions' },
    );
    await expectOneEntry(await t.call('PUT', `/users/${linus.user.id}/role`, { body: { permission_set_id: id } }), 200, linus.user.id, {
      action: 'user.role_change',
      target_type: 'user',
      summary: "changed linus's role from Members to Stewards",
    });
    // The role they have already: nothing changes, so nothing is logged (not "from Stewards to Stewards").
    const again = await t.call('PUT', `/users/${linus.user.id}/role`, { body: { permission_set_id: id } });
    expect(again.status).toBe(200);
    expect(again.body.permission_set_id).toBe(id);
    expect((await entriesFor(linus.user.id)).filter((e) => e.action === 'user.role_change')).toHaveLength(1);
    const members = (await t.call('GET', '/permission_sets')).body.items.find((s: { name: string }) => s.name === 'Members');
    await t.call('PUT', `/users/${linus.user.id}/role`, { body: { permission_set_id: members.id } });
    await expectOneEntry(await t.call('DELETE', `/permission_sets/${id}`), 204, id, { action: 'permission_set.delete', summary: 'deleted the role Stewards' });
  });

  it('webhooks added and removed, a delivery resent', async () => {
    const added = await t.call('POST', '/webhooks', { body: { url: 'http://127.0.0.1:9/audit', events: ['invite.created'] } });
    const id = added.body.id;
    await expectOneEntry(added, 201, id, { action: 'webhook.create', target_type: 'webhook', summary: 'added a webhook to http://127.0.0.1:9/audit' });
    await inviteTo(await t.member());
    const [delivery] = (await t.call('GET', `/webhooks/${id}/deliveries`)).body.items;
    await expectOneEntry(await t.call('POST', `/webhook_deliveries/${delivery.id}/redeliver`), 202, delivery.id, {
      action: 'webhook_delivery.redeliver',
      target_type: 'webhook_delivery',
      summary: `resent the invite.created delivery ${delivery.id} to http://127.0.0.1:9/audit`,
    });
    await expectOneEntry(await t.call('DELETE', `/webhooks/${id}`), 204, id, { action: 'webhook.delete', summary: 'removed the webhook to http://127.0.0.1:9/audit' });
  });

  it('users created through the API, and API keys created offline (no actor, no request)', async () => {
    const created = await t.call('POST', '/users', {
      body: { first_name: 'Mary', last_name: 'Shelley', nickname: 'mary', email: 'mary@example.org', password: 'secret123', accept_conditions: true, accept_confidentiality: true },
    });
    await expectOneEntry(created, 201, created.body.id, { action: 'user.create', target_type: 'user', summary: 'created the user mary' });
    await issueApiKey(t.deps, created.body.id);
    const [entry] = (await t.call('GET', `/audit_log?action=api_key.create&target_type=api_key`)).body.items as Entry[];
    expect(entry).toMatchObject({ actor_id: null, request_id: null, summary: 'created an API key for mary' });
  });
});

describe('target types', () => {
  it('are the resource of the action, one spelling: a user created and a user suspended are both on a `user`', async () => {
    const mary = await t.member({ nickname: 'target-mary' });
    const suspended = await t.call('PUT', `/users/${mary.user.id}/suspension`, { body: { reason: 'spam' } });
    await expectOneEntry(suspended, 200, mary.user.id, { action: 'user.suspend', target_type: 'user' });
    const onMary = (await t.call('GET', `/audit_log?target_type=user&target_id=${mary.user.id}`)).body.items as Entry[];
    expect(onMary.map((e) => e.action)).toEqual(['user.suspend', 'user.create']);
    for (const entry of (await t.call('GET', '/audit_log?per_page=100')).body.items as Entry[])
      expect(entry.target_type, entry.action).toBe(entry.action.split('.')[0]);
  });

  it('an action or a target type the log never writes is refused, naming those it does, not answered with nothing', async () => {
    for (const [filter, listed] of [
      ['target_type=User', 'page_access_request, invite, permission_set, user, webhook'],
      ['action=user.delete', 'page_access_request.accept, page_access_request.refuse'],
    ]) {
      const res = await t.call('GET', `/audit_log?${filter}`);
      expect(res.status, filter).toBe(400);
      expect(JSON.stringify(res.body), filter).toContain(listed);
    }
  });
});

describe('the same transaction', () => {
  it('a change that fails writes no entry', async () => {
    const before = (await t.call('GET', '/audit_log')).body.total_items;
    expect((await t.call('POST', '/permission_sets', { body: { name: 'admins' } })).status).toBe(409);
    expect((await t.call('PUT', `/users/${t.admin.id}/role`, { body: { permission_set_id: (await t.call('GET', '/permission_sets')).body.items[1].id } })).status).toBe(409);
    expect((await t.call('GET', '/audit_log')).body.total_items).toBe(before);
  });

  it('an entry that cannot be written undoes the change', async () => {
    const asker = await t.member();
    const id = await ask(asker);
    // A second connection on the same store makes the log refuse this one act.
    const raw = await openRaw(t.file);
    await raw.exec(
      onPostgres
        ? `create function refuse_accept() returns trigger language plpgsql as $$ begin
             if new.action = 'page_access_request.accept' then raise exception 'audit log unavailable'; end if; return new; end $$;
           create trigger refuse_accept before insert on audit_log for each row execute function refuse_accept()`
        : `create trigger refuse_accept before insert on audit_log when new.action = 'page_access_request.accept'
             begin select raise(abort, 'audit log unavailable'); end`,
    );
    try {
      expect((await t.call('PUT', `/page_access_requests/${id}/accept`)).status).toBe(500);
    } finally {
      await raw.exec(onPostgres ? 'drop trigger refuse_accept on audit_log; drop function refuse_accept()' : 'drop trigger refuse_accept');
      await raw.close();
    }
    expect((await t.call('GET', `/page_access_requests?user_id=${asker.user.id}`)).body.items).toMatchObject([{ id, state: 'waiting' }]);
    expect(await entriesFor(id)).toEqual([]);
    expect((await t.call('GET', '/moderation_queue')).body.items.map((i: { id: string }) => i.id)).toContain(id);
  });
});

describe('GET /audit_log', () => {
  it('is for Admins only: 403 for a Member and for a page creator', async () => {
    for (const who of [linus, ada]) {
      const res = await t.call('GET', '/audit_log', { as: who.creds });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
  });

  it('filters by actor, action, target and time, newest first, and walks by cursor', async () => {
    const byAda = (await t.call('GET', `/audit_log?actor_id=${ada.user.id}`)).body.items as Entry[];
    expect(byAda.length).toBeGreaterThanOrEqual(3);
    expect(byAda.every((e) => e.actor_id === ada.user.id)).toBe(true);
    const times = byAda.map((e) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);

    t.clock.set('2026-12-01T09:00:00.000Z');
    const late = await t.call('POST', '/permission_sets', { body: { name: 'December' } });
    const since = (await t.call('GET', '/audit_log?since=2026-12-01')).body;
    expect(since.items.map((e: Entry) => e.target_id)).toEqual([late.body.id]);
    const until = (await t.call('GET', '/audit_log?until=2026-12-01T00:00:00%2B00:00')).body;
    expect(until.items.map((e: Entry) => e.target_id)).not.toContain(late.body.id);
    expect(until.total_items).toBe((await t.call('GET', '/audit_log')).body.total_items - 1);
    expect((await t.call('GET', '/audit_log?since=2026-13-45')).status).toBe(400);
    // A day that is no day of its month is refused, as a suspension's end refuses it (one schema), not read as March.
    const noDay = await t.call('GET', '/audit_log?until=2026-02-30');
    expect([noDay.status, noDay.body.error?.message]).toEqual([400, 'until: is not a real date']);

    const all = (await t.call('GET', '/audit_log?per_page=100')).body.items.map((e: Entry) => e.id);
    const walked: string[] = [];
    let path: string | undefined = '/audit_log?per_page=3';
    while (path) {
      const res = await t.call('GET', path);
      walked.push(...res.body.items.map((e: Entry) => e.id));
      const link = res.headers.link as string | undefined;
      path = link ? /^<\/public-api\/v1(.+)>; rel="next"$/.exec(link)![1] : undefined;
    }
    expect(walked).toEqual(all);
  });
});

describe('GET /audit_log totals', () => {
  it('are kept by actor, action and type of target (no entry counted), counted for a target or a time window, and each is its rows', async () => {
    const all = (await t.call('GET', '/audit_log?per_page=100')).body;
    expect(all.total_items).toBe(all.items.length);
    const entry = (all.items as Entry[]).find((e) => e.actor_id !== null)!;
    const filters = { actor_id: entry.actor_id!, action: entry.action, target_type: entry.target_type };
    const names = Object.keys(filters) as (keyof typeof filters)[];
    for (let mask = 0; mask < 1 << names.length; mask++) {
      const query = names.filter((_, i) => mask & (1 << i)).map((n) => `${n}=${encodeURIComponent(filters[n])}`).join('&');
      statements.length = 0;
      const res = await t.call('GET', `/audit_log?${query}&per_page=100`);
      expect(res.status).toBe(200);
      const expected = (all.items as Entry[]).filter((e) => names.every((n, i) => !(mask & (1 << i)) || e[n] === filters[n]));
      expect(res.body.total_items, query).toBe(expected.length);
      expect(res.body.items.map((e: Entry) => e.id), query).toEqual(expected.map((e) => e.id));
      expect(statements.filter((q) => /count\(\*\)/i.test(q)), query).toEqual([]);
    }
    for (const query of [`target_id=${entry.target_id}`, 'since=2020-01-01']) {
      const res = await t.call('GET', `/audit_log?${query}&per_page=100`);
      expect(res.body.total_items, query).toBe(res.body.items.length);
    }
    expect(await t.store.checkCounts()).toEqual([]);
  });
});

describe('API keys revoked', () => {
  it('writes one api_key.revoke entry in the revocation, naming the owner', async () => {
    const issued = await issueApiKey(t.deps, linus.user.id);
    const keys = await t.call('GET', `/api_keys?user_id=${linus.user.id}`);
    const key = keys.body.items.find((k: { api_key: string }) => k.api_key === issued.api_key);
    const res = await t.call('DELETE', `/api_keys/${key.id}`);
    await expectOneEntry(res, 204, key.id, { action: 'api_key.revoke', target_type: 'api_key', summary: 'revoked an API key of linus' });
    // A key that is gone is 404, and writes nothing.
    expect((await t.call('DELETE', `/api_keys/${key.id}`)).status).toBe(404);
    expect((await entriesFor(key.id)).filter((e) => e.action === 'api_key.revoke')).toHaveLength(1);
  });
});
