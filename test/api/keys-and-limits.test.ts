import { pbkdf2 } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/domain/api-keys.js';
import { VerificationQueue } from '../../src/domain/auth-limits.js';
import { testClock, useApp } from '../helpers/app.js';
import { afterAccessChange, onPostgres, TEST_SECRET_KEY } from '../helpers/store-target.js';

const clock = testClock();
/** Every statement the store runs, for the checks that look at how a list counts. */
const statements: string[] = [];
const api = useApp({
  clock,
  auth: { failuresPerAddress: 3, failuresPerKey: 2, windowMs: 60_000 },
  storeOptions: { onQuery: (sql: string) => void statements.push(sql) },
});

async function newMember() {
  const { user, creds } = await api.member();
  return { id: user.id, creds };
}

describe('failed authentication limits', () => {
  it('answers 429 rate_limited with Retry-After once an address has failed too often, until the window ends', async () => {
    const from = { remoteAddress: '203.0.113.7' };
    const wrong = { key: api.admin.key, secret: 'as_wrong_wrong_wrong' };
    const other = await newMember();
    // Failures on two keys: only the address is over its limit.
    for (const creds of [wrong, { key: other.creds.key, secret: 'nope-nope-nope' }, { key: 'ak_unknown', secret: 'x'.repeat(20) }])
      expect((await api.call('GET', '/me', { as: creds, ...from })).status).toBe(401);
    const limited = await api.call('GET', '/me', { as: { key: 'ak_other', secret: 'y'.repeat(20) }, ...from });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      error: { code: 'rate_limited', message: expect.stringContaining('retry in'), request_id: limited.headers['x-request-id'] },
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    // Another address is not held back; a remembered valid pair is not either.
    expect((await api.call('GET', '/me', { as: api.admin, remoteAddress: '198.51.100.9' })).status).toBe(200);
    clock.advance(61_000);
    expect((await api.call('GET', '/me', { as: wrong, ...from })).status).toBe(401);
  });

  it('counts an IPv6 client by its /64 network, which one host holds whole: a new address in it is no new client', async () => {
    // A machine given a /64 (every VPS, every home line) may send from any of its 2^64 addresses.
    const wrong = { key: api.admin.key, secret: 'as_wrong_wrong_wrong' };
    const others = ['ak_unknown_a', 'ak_unknown_b'].map((key) => ({ key, secret: 'x'.repeat(20) }));
    const from = ['2001:db8:7:1::1', '2001:db8:7:1::2', '2001:db8:7:1:ffff:1:2:3'];
    for (const [i, creds] of [wrong, ...others].entries())
      expect((await api.call('GET', '/me', { as: creds, remoteAddress: from[i] })).status).toBe(401);
    const limited = await api.call('GET', '/me', { as: { key: 'ak_other', secret: 'y'.repeat(20) }, remoteAddress: '2001:db8:7:1:abcd::9' });
    expect(limited.status).toBe(429);
    // Its key and address forms count alike: the same network written out whole, or its mapped IPv4 form for IPv4.
    expect((await api.call('GET', '/me', { as: others[0], remoteAddress: '2001:0db8:0007:0001:0:0:0:5' })).status).toBe(429);
    // Another /64 is another client; the right secret is let in from the network (a remembered pair is not held back).
    expect((await api.call('GET', '/me', { as: { key: 'ak_x', secret: 'z'.repeat(20) }, remoteAddress: '2001:db8:7:2::1' })).status).toBe(401);
    expect((await api.call('GET', '/me', { as: api.admin, remoteAddress: '2001:db8:7:1::1' })).status).toBe(200);
    clock.advance(61_000);
  });

  it('limits failures per key and address: a flood from one address never refuses the right secret from another, verified before or not', async () => {
    for (const verifiedBefore of [false, true]) {
      const { creds } = await newMember();
      if (verifiedBefore) {
        expect((await api.call('GET', '/me', { as: creds, remoteAddress: '192.0.2.9' })).status).toBe(200);
        // The remembered pair expires: its next use is checked with scrypt again (as after a restart).
        clock.advance(6 * 60_000);
      }
      const wrong = { key: creds.key, secret: 'as_wrong_wrong_wrong' };
      for (let i = 0; i < 2; i++) expect((await api.call('GET', '/me', { as: wrong, remoteAddress: '192.0.2.1' })).status).toBe(401);
      const limited = await api.call('GET', '/me', { as: wrong, remoteAddress: '192.0.2.1' });
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBeDefined();
      // The flood goes on; the owner, elsewhere, is let in.
      expect((await api.call('GET', '/me', { as: wrong, remoteAddress: '192.0.2.1' })).status).toBe(429);
      expect((await api.call('GET', '/me', { as: creds, remoteAddress: '192.0.2.4' })).status, `verified before: ${verifiedBefore}`).toBe(200);
      clock.advance(61_000);
    }
  });

  it('holds guesses sent all at once to the limit, and checks a right secret sent many times at once once', async () => {
    const { creds } = await newMember();
    // Eight different secrets at once, the right one last: each running check counts as a failure until it ends.
    const guesses = [...Array.from({ length: 7 }, (_, i) => `as_wrong_guess_${i}_xxxx`), creds.secret];
    const answers = await Promise.all(guesses.map((secret) => api.call('GET', '/me', { as: { key: creds.key, secret }, remoteAddress: '192.0.2.31' })));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(2);
    expect(statuses.slice(2)).toEqual(Array(6).fill(429));
    // The same right secret many times at once, from an address with no failures: one check, every call let in.
    const verified = statements.length;
    const first = await Promise.all(Array.from({ length: 6 }, () => api.call('GET', '/me', { as: creds, remoteAddress: '192.0.2.32' })));
    expect(first.map((res) => res.status)).toEqual(Array(6).fill(200));
    expect(statements.slice(verified).filter((sql) => /secret_hash/.test(sql))).toHaveLength(1);
    // Several users' first calls at once from one address (behind one NAT): more than its limit of failures, all let
    // in. Once the address has failed, its running checks count against it too.
    const users = await Promise.all(Array.from({ length: 4 }, () => newMember()));
    const together = await Promise.all(users.map((user) => api.call('GET', '/me', { as: user.creds, remoteAddress: '192.0.2.33' })));
    expect(together.map((res) => res.status)).toEqual(Array(4).fill(200));
    expect((await api.call('GET', '/me', { as: { key: 'ak_unknown', secret: 'z'.repeat(20) }, remoteAddress: '192.0.2.34' })).status).toBe(401);
    const sprayed = await Promise.all(
      users.map((user) => api.call('GET', '/me', { as: { key: user.creds.key, secret: 'as_wrong_spray_xxxxx' }, remoteAddress: '192.0.2.34' })),
    );
    expect(sprayed.map((res) => res.status)).toEqual([401, 401, 429, 429]);
    clock.advance(61_000);
  });

  it('never lets a check that read a key before it was revoked answer for a request made after', async () => {
    const member = await newMember();
    const [key] = (await api.call('GET', `/api_keys?user_id=${member.id}`)).body.items as { id: string }[];
    // The crypto threads kept busy, so that the first check, its key read, waits for its scrypt while the key is revoked.
    const busy = Array.from({ length: 4 }, () => new Promise((done) => pbkdf2('agora', 'busy', 400_000, 64, 'sha512', done)));
    const mark = statements.length;
    const first = api.call('GET', '/me', { as: member.creds, remoteAddress: '192.0.2.41' });
    while (!statements.slice(mark).some((sql) => /secret_hash/.test(sql))) await new Promise((ok) => setImmediate(ok));
    expect((await api.call('DELETE', `/api_keys/${key!.id}`)).status).toBe(204);
    const after = await api.call('GET', '/me', { as: member.creds, remoteAddress: '192.0.2.41' });
    expect(after.status).toBe(401);
    await Promise.all([first, ...busy]);
    expect((await api.call('GET', '/me', { as: member.creds, remoteAddress: '192.0.2.42' })).status).toBe(401);
  });

  it('does not count failures for a key across addresses', async () => {
    const { creds } = await newMember();
    const wrong = { key: creds.key, secret: 'as_wrong_wrong_wrong' };
    for (const address of ['192.0.2.21', '192.0.2.22', '192.0.2.23', '192.0.2.24'])
      expect((await api.call('GET', '/me', { as: wrong, remoteAddress: address })).status).toBe(401);
    expect((await api.call('GET', '/me', { as: creds, remoteAddress: '192.0.2.25' })).status).toBe(200);
    clock.advance(61_000);
  });
});

describe('the verification queue', () => {
  const deferred = () => {
    let release!: () => void;
    const promise = new Promise<void>((resolve) => (release = resolve));
    return { promise, release };
  };

  it('runs clean checks before suspect ones, and refuses suspects first when full', async () => {
    const queue = new VerificationQueue(1, 2);
    const order: string[] = [];
    const gate = deferred();
    const running = queue.run(false, async () => {
      await gate.promise;
      order.push('first');
    });
    const suspect1 = queue.run(true, async () => void order.push('suspect1'));
    const suspect2 = queue.run(true, async () => void order.push('suspect2'));
    // Full (two waiting): a third suspect is refused at once; a clean check takes the newest suspect's place.
    await expect(queue.run(true, async () => void order.push('suspect3'))).rejects.toMatchObject({ status: 429, code: 'rate_limited' });
    const clean = queue.run(false, async () => void order.push('clean'));
    await expect(suspect2).rejects.toMatchObject({ status: 429, headers: { 'retry-after': '1' } });
    gate.release();
    await Promise.all([running, suspect1, clean]);
    expect(order).toEqual(['first', 'clean', 'suspect1']);
    expect(queue.waiting).toBe(0);
  });
});

describe('API keys', () => {
  it('GET /api_keys lists pairs for Admins, never a secret; a Member gets 403', async () => {
    const member = await newMember();
    expect((await api.call('GET', '/me', { as: member.creds })).status).toBe(200);
    const res = await api.call('GET', `/api_keys?user_id=${member.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: [
        {
          id: expect.stringMatching(/^[0-9a-f]{32}$/),
          user_id: member.id,
          api_key: member.creds.key,
          created_at: expect.any(String),
          last_used_at: clock().toISOString(),
        },
      ],
      total_items: 1,
    });
    expect(JSON.stringify(res.body)).not.toContain(member.creds.secret);
    expect(JSON.stringify(res.body)).not.toContain('scrypt');
    const forbidden = await api.call('GET', '/api_keys', { as: member.creds });
    expect(forbidden.status).toBe(403);
    expect((await api.call('DELETE', `/api_keys/${res.body.items[0].id}`, { as: member.creds })).status).toBe(403);
  });

  it('GET /api_keys pages as every list does: per_page, a Link to the next page, the same total on each', async () => {
    const member = await newMember();
    for (let i = 0; i < 2; i++) await issueApiKey(api.deps, member.id);
    const first = await api.call('GET', `/api_keys?user_id=${member.id}&per_page=2`);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.total_items).toBe(3);
    const link = String(first.headers.link);
    expect(link).toMatch(/rel="next"/);
    const next = /<[^>]*(\/api_keys\?[^>]*)>; rel="next"/.exec(link)![1]!;
    const second = await api.call('GET', next);
    expect(second.body).toMatchObject({ total_items: 3, items: [{ user_id: member.id }] });
    expect(second.headers.link ?? '').not.toMatch(/rel="next"/);
    const ids = [...first.body.items, ...second.body.items].map((k: { id: string }) => k.id);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(3);
  });

  it('GET /api_keys counts all keys from the kept count (not a walk of every key), which follows keys made and revoked', async () => {
    const total = async () => {
      statements.length = 0;
      const res = await api.call('GET', '/api_keys?per_page=1');
      expect(statements.filter((q) => /count\(/i.test(q) && /"api_keys"/.test(q))).toEqual([]);
      return res.body.total_items as number;
    };
    const before = await total();
    const member = await newMember();
    await issueApiKey(api.deps, member.id);
    expect(await total()).toBe(before + 2);
    const [key] = (await api.call('GET', `/api_keys?user_id=${member.id}`)).body.items;
    expect((await api.call('DELETE', `/api_keys/${key.id}`)).status).toBe(204);
    expect(await total()).toBe(before + 1);
    let walked = 0;
    for (let path: string | undefined = '/api_keys?per_page=100'; path; ) {
      const page: { body: { items: unknown[] }; headers: Record<string, unknown> } = await api.call('GET', path);
      walked += page.body.items.length;
      path = /<[^>]*(\/api_keys\?[^>]*)>; rel="next"/.exec(String(page.headers.link ?? ''))?.[1];
    }
    expect(walked).toBe(before + 1);
  });

  it('DELETE /api_keys/{id} revokes a pair: refused from the next request, though it was remembered', async () => {
    const member = await newMember();
    expect((await api.call('GET', '/me', { as: member.creds })).status).toBe(200);
    const [key] = (await api.call('GET', `/api_keys?user_id=${member.id}`)).body.items;
    expect((await api.call('DELETE', `/api_keys/${key.id}`)).status).toBe(204);
    const refused = await api.call('GET', '/me', { as: member.creds });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthorized');
    expect((await api.call('DELETE', `/api_keys/${key.id}`)).status).toBe(404);
  });

  it('a pair revoked through one server is refused by another on the same store from its next request (PostgreSQL: within the bound)', async () => {
    // A second process's view: another store (connection) and app on the same file.
    const { openStore } = await import('../../src/store/open.js');
    const { createApp } = await import('../../src/server/app.js');
    const store = await openStore(api.file, onPostgres ? { secretKey: TEST_SECRET_KEY } : {});
    const second = await createApp({ store });
    try {
      const member = await newMember();
      const me = () =>
        second.inject({ method: 'GET', url: '/public-api/v1/me', headers: { 'api-key': member.creds.key, 'api-secret': member.creds.secret } });
      expect((await me()).statusCode).toBe(200);
      expect((await me()).statusCode).toBe(200);
      const [key] = (await api.call('GET', `/api_keys?user_id=${member.id}`)).body.items;
      expect((await api.call('DELETE', `/api_keys/${key.id}`)).status).toBe(204);
      expect((await afterAccessChange(me, (res) => res.statusCode === 401)).statusCode).toBe(401);
    } finally {
      await second.close();
      await store.close();
    }
  });
});

describe('nicknames', () => {
  it('are unique whatever their case', async () => {
    const body = (nickname: string) => ({
      first_name: 'Z',
      last_name: 'Z',
      nickname,
      email: `${nickname.toLowerCase()}-${Math.random().toString(16).slice(2)}@example.org`,
      password: 'secret123',
      accept_conditions: true,
      accept_confidentiality: true,
    });
    expect((await api.call('POST', '/users', { body: body('Zed') })).status).toBe(201);
    const clash = await api.call('POST', '/users', { body: body('zED') });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe('nickname_taken');
    expect((await api.call('GET', '/users/nickname_availability?nickname=ZED')).body.available).toBe(false);
  });
});
