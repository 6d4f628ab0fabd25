import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createPageConfiguration, userBody, type ApiResponse } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { removeDir, startServer, type Credentials, type RunningServer } from '../helpers/server.js';
import { afterAccessChange, withClient } from '../helpers/store-target.js';

/**
 * Two real `agora serve` processes on one database, every burst of concurrent requests split between them
 * (even ones to the first, odd ones to the second): what one writer gave the SQLite store must hold when
 * nothing is shared but the database. On a SQLite file now; on PostgreSQL when AGORA_TEST_DB names one
 * (`postgres://…`, a fresh database for the run).
 */
const TARGET = process.env.AGORA_TEST_DB?.startsWith('postgres') ? process.env.AGORA_TEST_DB : undefined;
const ENV = {
  AGORA_WEBHOOKS_ALLOW_PRIVATE: '1',
  // Every process seals and opens webhook secrets with one key (beside a SQLite file it would be <db>.key).
  AGORA_SECRET_KEY: 'two-processes-share-this-sealing-key',
  // An attempt gives up after 3 s; a claimed delivery another process may take over 1 s after that.
  AGORA_WEBHOOK_TIMEOUT_MS: '3000',
  AGORA_LEASE_MS: '1000',
  AGORA_WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1',
};

let a: RunningServer;
let b: RunningServer;
let receiver: Receiver;
let hookId: string;
let configId: string;

beforeAll(async () => {
  a = await startServer({ env: ENV, args: TARGET ? ['--db', TARGET] : [] });
  b = await startServer({ env: ENV, dir: a.dir, args: TARGET ? ['--db', TARGET] : [] });
  receiver = await startReceiver('ok');
  const hook = await call(a, 'POST', '/webhooks', {
    body: { url: receiver.url, events: ['page_access_request.created', 'invite.created'] },
  });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  hookId = hook.body.id;
  configId = (await createPageConfiguration(a)).id;
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop('SIGKILL')]);
  await receiver?.close();
  if (a) removeDir(a.dir);
});

/** The server of the i-th request of a burst: one of two in turn. */
const either = (i: number) => (i % 2 === 0 ? a : b);
const burst = <T>(n: number, send: (server: RunningServer, i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: n }, (_, i) => send(either(i), i)));
const statuses = (answers: ApiResponse[]) => answers.map((r) => r.status).sort();
const tag = () => randomBytes(4).toString('hex');

async function newUser(overrides: Record<string, unknown> = {}) {
  const res = await call(a, 'POST', '/users', { body: userBody(overrides) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; nickname: string };
}

/** A key pair made offline, straight into the shared database, like an operator would. */
async function keyFor(userId: string): Promise<Credentials> {
  const result = await runCli(['admin', 'create-key', '--db', TARGET ?? a.db, '--user', userId, '--json'], { home: a.dir });
  expect(result.code, result.stderr).toBe(0);
  const pair = JSON.parse(result.stdout) as { api_key: string; api_secret: string };
  return { key: pair.api_key, secret: pair.api_secret };
}

async function newPage(ownerId: string, privacy: string, name = `Page ${tag()}`) {
  const res = await call(a, 'POST', '/pages', { body: { name, privacy, page_configuration_id: configId, user_id: ownerId } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; slug: string };
}

describe('two agora serve processes on one database', () => {
  it('20 creates of one email: one user, 19 × 409 email_taken', async () => {
    const email = `same-${tag()}@example.org`;
    const answers = await burst(20, (server, i) => call(server, 'POST', '/users', { body: userBody({ email, nickname: `same_${tag()}_${i}` }) }));
    expect(statuses(answers)).toEqual([201, ...Array<number>(19).fill(409)]);
    for (const res of answers.filter((r) => r.status === 409)) expect(res.body.error.code).toBe('email_taken');
    const users = await call(a, 'GET', '/users?per_page=100');
    const all = [...users.body.items];
    for (let page = 2; page <= Math.ceil(users.body.total_items / 100); page++)
      all.push(...(await call(a, 'GET', `/users?per_page=100&page=${page}`)).body.items);
    expect(all.filter((u: { email?: string }) => u.email === email)).toHaveLength(1);
  });

  it('20 identical access requests: one waiting request, 19 × 409 access_request_pending', async () => {
    const owner = await newUser();
    const page = await newPage(owner.id, 'private');
    const requester = await newUser();
    const answers = await burst(20, (server) => call(server, 'POST', '/page_access_requests', { body: { page_id: page.id, user_id: requester.id } }));
    expect(statuses(answers)).toEqual([201, ...Array<number>(19).fill(409)]);
    for (const res of answers.filter((r) => r.status === 409)) expect(res.body.error.code).toBe('access_request_pending');
    const listed = await call(b, 'GET', `/page_access_requests?page_id=${page.id}&user_id=${requester.id}`);
    expect(listed.body.total_items).toBe(1);
    expect(listed.body.items).toHaveLength(1);
  });

  it('20 identical invites: one invite, 19 answers naming the user "User already invite"', async () => {
    const owner = await newUser();
    const page = await newPage(owner.id, 'private');
    const guest = await newUser();
    const answers = await burst(20, (server) =>
      call(server, 'POST', '/invites', { body: { target_type: 'Page', target_id: page.id, user_id: owner.id, user_target_ids: [guest.id] } }),
    );
    expect(statuses(answers)).toEqual(Array<number>(20).fill(200));
    expect(answers.flatMap((r) => r.body.success)).toHaveLength(1);
    expect(answers.flatMap((r) => r.body.errors)).toEqual(Array(19).fill({ [guest.id]: 'User already invite' }));
    const listed = await call(b, 'GET', `/invites?target_id=${page.id}&user_target_id=${guest.id}`);
    expect(listed.body.total_items).toBe(1);
  });

  it('30 yes answers to an event of 10 places: 10 taken, 20 × 409 event_full', async () => {
    const creator = await newUser();
    const start = new Date(Date.now() + 86_400_000);
    const event = await call(a, 'POST', '/events', {
      body: {
        name: `Supper ${tag()}`,
        user_id: creator.id,
        start_date: start.toISOString(),
        end_date: new Date(start.getTime() + 3_600_000).toISOString(),
        places_limit: 10,
      },
    });
    expect(event.status, JSON.stringify(event.body)).toBe(201);
    const guests = await Promise.all(Array.from({ length: 30 }, () => newUser()));
    const answers = await burst(30, (server, i) =>
      call(server, 'PUT', `/events/${event.body.id}/attendance`, { body: { user_id: guests[i]!.id, answer: 'yes' } }),
    );
    expect(statuses(answers)).toEqual([...Array<number>(10).fill(200), ...Array<number>(20).fill(409)]);
    for (const res of answers.filter((r) => r.status === 409)) expect(res.body.error.code).toBe('event_full');
    const after = await call(b, 'GET', `/events/${event.body.id}`);
    expect(after.body).toMatchObject({ attendees_count: 10, places_left: 0 });
    expect((await call(a, 'GET', `/events/${event.body.id}/attendees?answer=yes`)).body.total_items).toBe(10);
  });

  it('10 POSTs with one Idempotency-Key: one page created, every answer the same', async () => {
    const owner = await newUser();
    const body = { name: `Once ${tag()}`, privacy: 'public', page_configuration_id: configId, user_id: owner.id };
    const key = `idem-${tag()}`;
    const answers = await burst(10, (server) => call(server, 'POST', '/pages', { body, headers: { 'idempotency-key': key } }));
    expect(statuses(answers)).toEqual(Array<number>(10).fill(201));
    expect(new Set(answers.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect((await call(b, 'GET', `/pages?owner=${owner.id}`)).body.total_items).toBe(1);
  });

  it('10 pages of one name at once: 10 pages, 10 different slugs', async () => {
    const owner = await newUser();
    const name = `Same Name ${tag()}`;
    const answers = await burst(10, (server) =>
      call(server, 'POST', '/pages', { body: { name, privacy: 'public', page_configuration_id: configId, user_id: owner.id } }),
    );
    expect(statuses(answers)).toEqual(Array<number>(10).fill(201));
    expect(new Set(answers.map((r) => r.body.slug)).size).toBe(10);
  });

  it('role names unique whatever their case, even when created at once through both', async () => {
    const name = `Mods${tag()}`;
    const answers = await burst(10, (server, i) =>
      call(server, 'POST', '/permission_sets', { body: { name: i % 2 ? name.toLowerCase() : name.toUpperCase() } }),
    );
    expect(statuses(answers)).toEqual([201, ...Array<number>(9).fill(409)]);
  });

  it('each webhook delivery is sent once', async () => {
    const listed = await call(a, 'GET', `/webhooks/${hookId}/deliveries?per_page=100`);
    const deliveries = listed.body.items as { id: string; status: string }[];
    // An access request and an invite above: one delivery each.
    expect(listed.body.total_items).toBe(2);
    const received = await receiver.waitFor((reqs) => new Set(reqs.map((r) => r.headers['webhook-id'])).size >= 2, {
      what: 'both deliveries',
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // a second poll of each process, to catch a double send
    const ids = receiver.requests.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(received.every((r) => r.behaviour === 'ok')).toBe(true);
    await waitUntil(async () => {
      const now = await call(b, 'GET', `/webhooks/${hookId}/deliveries?per_page=100`);
      return now.body.items.every((d: { status: string }) => d.status === 'delivered');
    }, 'deliveries recorded delivered');
    expect(deliveries).toHaveLength(2);
  });

  it('each fan-out notification is created once, whichever process carries the job out', async () => {
    const owner = await newUser();
    const page = await newPage(owner.id, 'public');
    const members = await Promise.all(Array.from({ length: 40 }, () => newUser()));
    await burst(40, (server, i) =>
      call(server, 'POST', '/follows', { body: { user_id: members[i]!.id, followable_type: 'Page', followable_id: page.id } }),
    );
    const posted = await burst(12, (server, i) =>
      call(server, 'POST', '/statuses', { body: { user_id: owner.id, page_id: page.id, content: `news ${i}` } }),
    );
    expect(statuses(posted)).toEqual(Array<number>(12).fill(201));
    for (const member of members) {
      await waitUntil(async () => {
        const res = await call(either(members.indexOf(member)), 'GET', `/users/${member.id}/notifications?per_page=100`);
        return Number(res.headers.get('x-total-count')) >= 12;
      }, `the notifications of ${member.nickname}`).catch((error) => {
        throw new Error(`${(error as Error).message}\nserver a:\n${a.errors().slice(-3000)}\nserver b:\n${b.errors().slice(-3000)}`);
      });
      const res = await call(a, 'GET', `/users/${member.id}/notifications?per_page=100`);
      const fromStatuses = (res.body as { notification_type: string; target_id: string }[]).filter((n) => n.notification_type === 'status');
      expect(res.headers.get('x-total-count')).toBe('12');
      expect(fromStatuses).toHaveLength(12);
      expect(new Set(fromStatuses.map((n) => n.target_id)).size).toBe(12);
    }
  }, 120_000);

  it('a key revoked through one process is refused by the other within the bound (SQLite: from its next request)', async () => {
    const member = await newUser();
    const creds = await keyFor(member.id);
    // Verified (and remembered) by the second process first.
    expect((await call(b, 'GET', `/users/${member.id}`, { as: creds })).status).toBe(200);
    expect((await call(b, 'GET', `/users/${member.id}`, { as: creds })).status).toBe(200);
    const keys = await call(a, 'GET', `/api_keys?user_id=${member.id}`);
    expect((await call(a, 'DELETE', `/api_keys/${keys.body.items[0].id}`)).status).toBe(204);
    expect((await afterAccessChange(() => call(b, 'GET', `/users/${member.id}`, { as: creds }), (r) => r.status === 401)).status).toBe(401);
  });

  it('a role edited through one process applies in the other within the bound (SQLite: from its next request)', async () => {
    const role = await call(a, 'POST', '/permission_sets', {
      body: { name: `Readers ${tag()}`, permissions: { users: { can_use_api: true, show: true } } },
    });
    expect(role.status, JSON.stringify(role.body)).toBe(201);
    const member = await newUser();
    expect((await call(a, 'PUT', `/users/${member.id}/role`, { body: { permission_set_id: role.body.id } })).status).toBe(200);
    const creds = await keyFor(member.id);
    expect((await call(b, 'GET', '/users', { as: creds })).status).toBe(403);
    expect((await call(b, 'GET', '/users', { as: creds })).status).toBe(403);
    const edited = await call(a, 'PUT', `/permission_sets/${role.body.id}`, { body: { permissions: { users: { index: true } } } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect((await afterAccessChange(() => call(b, 'GET', '/users', { as: creds }), (r) => r.status === 200)).status).toBe(200);
  });

  it.runIf(TARGET)('PostgreSQL: a process whose listening connection was lost trusts nothing it remembered', async () => {
    const member = await newUser();
    const creds = await keyFor(member.id);
    const asMember = () => call(b, 'GET', `/users/${member.id}`, { as: creds });
    // The second process listens (its first authenticated request opens the connection), then remembers the key.
    expect((await call(b, 'GET', '/users?per_page=1')).status).toBe(200);
    await waitUntil(async () => (await listenerOf(b)) !== undefined, 'the second process listening');
    expect((await asMember()).status).toBe(200);
    expect((await asMember()).status).toBe(200);
    // The key deleted behind every trigger's back (as if its notification were lost): the second process,
    // told nothing, still answers from what it remembers. This is what the rest of the test relies on.
    await withClient(async (client) => {
      await client.query('begin');
      await client.query('set local session_replication_role = replica');
      await client.query('delete from api_keys where user_id = $1', [member.id]);
      await client.query('commit');
    }, TARGET);
    expect((await asMember()).status).toBe(200);
    // Its listening connection is cut; once it listens again, everything remembered before is dropped.
    const before = await listenerOf(b);
    expect(await withClient((c) => c.query('select pg_terminate_backend($1)', [before]), TARGET)).toMatchObject({ rows: [{ pg_terminate_backend: true }] });
    await waitUntil(async () => ![undefined, before].includes(await listenerOf(b)), 'the second process listening again');
    expect((await asMember()).status).toBe(401);

    // A key revoked through the first process while the second's listening connection is down.
    const again = await keyFor(member.id);
    const asMemberAgain = () => call(b, 'GET', `/users/${member.id}`, { as: again });
    expect((await asMemberAgain()).status).toBe(200);
    expect((await asMemberAgain()).status).toBe(200);
    await withClient((c) => c.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [`agora listener ${b.process.pid}`]), TARGET);
    const keys = await call(a, 'GET', `/api_keys?user_id=${member.id}`);
    expect((await call(a, 'DELETE', `/api_keys/${keys.body.items[0].id}`)).status).toBe(204);
    expect((await afterAccessChange(asMemberAgain, (r) => r.status === 401)).status).toBe(401);
    await waitUntil(async () => (await listenerOf(b)) !== undefined, 'the second process listening again');
    expect((await asMemberAgain()).status).toBe(401);
  });

  it('a process killed with SIGKILL mid-delivery: the other takes its claim over once the lease ends, and finishes', async () => {
    const hanging = await startReceiver('hang');
    try {
      const hook = await call(a, 'POST', '/webhooks', { body: { url: hanging.url, events: ['page_access_request.created'] } });
      expect(hook.status).toBe(201);
      const owner = await newUser();
      const pages = await Promise.all(Array.from({ length: 6 }, () => newPage(owner.id, 'private')));
      const requester = await newUser();
      const created = await burst(6, (server, i) =>
        call(server, 'POST', '/page_access_requests', { body: { page_id: pages[i]!.id, user_id: requester.id } }),
      );
      expect(statuses(created)).toEqual(Array<number>(6).fill(201));
      // Each process has one attempt in flight to a webhook at most: two hanging requests, one from each.
      await hanging.waitFor((reqs) => reqs.length >= 2, { what: 'an attempt in flight from each process' });
      await b.stop('SIGKILL');
      hanging.setDefault('ok');
      await waitUntil(async () => {
        const res = await call(a, 'GET', `/webhooks/${hook.body.id}/deliveries?per_page=100`);
        return res.body.items.length === 6 && res.body.items.every((d: { status: string }) => d.status === 'delivered');
      }, 'every delivery delivered by the process left', 60_000);
      const deliveries = (await call(a, 'GET', `/webhooks/${hook.body.id}/deliveries?per_page=100`)).body.items as {
        message_id: string;
        attempts: number;
      }[];
      const sent = (messageId: string) => hanging.requests.filter((r) => r.headers['webhook-id'] === messageId);
      // Each one answered 200 exactly once: no delivery sent twice successfully.
      for (const d of deliveries) expect(sent(d.message_id).filter((r) => r.behaviour === 'ok')).toHaveLength(1);
      // The killed process's attempt was never recorded: its delivery went out twice but counts one attempt.
      expect(deliveries.some((d) => d.attempts === 1 && sent(d.message_id).length === 2)).toBe(true);
    } finally {
      await hanging.close();
    }
  }, 120_000);
});

/** The backend of a server's listening connection once it listens (PostgreSQL), or undefined while it has none. */
async function listenerOf(server: RunningServer): Promise<number | undefined> {
  const { rows } = await withClient(
    (c) => c.query<{ pid: number }>(`select pid from pg_stat_activity where application_name = $1 and state = 'idle' and query in ('listen agora_access', 'select 1')`, [`agora listener ${server.process.pid}`]),
    TARGET,
  );
  return rows[0]?.pid;
}

/** Polls until `check` holds (the outboxes work in the background); fails naming `what` after the deadline. */
async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
