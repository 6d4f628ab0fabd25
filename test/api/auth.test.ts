import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createPageConfiguration, createUser, createUserWithKey, userBody } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { onPostgres, openRaw } from '../helpers/store-target.js';

const server = useServer();
/** A Member with their own key (made once: a key costs a process start). */
let member: Awaited<ReturnType<typeof createUserWithKey>>;
beforeAll(async () => {
  member = await createUserWithKey(server);
});

const tag = () => randomBytes(4).toString('hex');

/** A GET with exactly the given headers (no credentials added). */
const rawGet = (path: string, headers: Record<string, string>) =>
  call(server, 'GET', path, { as: null, headers });

function expect401(res: { status: number; body: any }): void {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String), request_id: expect.any(String) } });
  expect(res.body.error.message.length).toBeGreaterThan(0);
}

/**
 * Everything the store holds: the SQLite file and its WAL, where recent writes live until a checkpoint; on
 * PostgreSQL, every row of every table of the store's schema as text.
 */
async function storeBytes(): Promise<Buffer> {
  if (!onPostgres)
    return Buffer.concat([server.db, `${server.db}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
  const raw = await openRaw(server.db);
  try {
    const tables = await raw.all<{ name: string }>(
      'select table_name as name from information_schema.tables where table_schema = current_schema()',
    );
    // One at a time: a PostgreSQL connection runs one query at once (pg 9 refuses a second queued on it).
    const rows: { row: string }[] = [];
    for (const t of tables) rows.push(...(await raw.all<{ row: string }>(`select r::text as row from "${t.name}" r`)));
    return Buffer.from(rows.map((r) => r.row).join('\n'));
  } finally {
    await raw.close();
  }
}

describe('credentials', () => {
  it('answers 401 unauthorized without any credential header', async () => {
    expect401(await rawGet('/users', {}));
    expect401(await rawGet('/permissions', {}));
    expect401(await call(server, 'POST', '/users', { as: null, body: userBody() }));
  });

  it('answers 401 with only one of the two headers', async () => {
    expect401(await rawGet('/users', { 'api-key': server.admin.key }));
    expect401(await rawGet('/users', { 'api-secret': server.admin.secret }));
  });

  it('answers 401 with empty header values', async () => {
    expect401(await rawGet('/users', { 'api-key': '', 'api-secret': '' }));
    expect401(await rawGet('/users', { 'api-key': server.admin.key, 'api-secret': '' }));
  });

  it('answers 401 for a wrong secret, even right after the right one was accepted', async () => {
    const fresh = member.creds;
    expect((await call(server, 'GET', '/me', { as: fresh })).status).toBe(200);
    expect401(await call(server, 'GET', '/me', { as: { key: fresh.key, secret: `${fresh.secret}x` } }));
    expect401(await call(server, 'GET', '/me', { as: { key: fresh.key, secret: fresh.secret.slice(0, -1) } }));
    expect401(await call(server, 'GET', '/me', { as: { key: fresh.key, secret: server.admin.secret } }));
    // A wrong attempt does not spoil the right pair.
    expect((await call(server, 'GET', '/me', { as: fresh })).status).toBe(200);
  });

  it('answers 401 for a wrong secret on a key never used before', async () => {
    const { creds } = await createUserWithKey(server);
    expect401(await call(server, 'GET', '/me', { as: { key: creds.key, secret: 'as_wrong_but_long_enough' } }));
    expect((await call(server, 'GET', '/me', { as: creds })).status).toBe(200);
  });

  it('answers 401 for an unknown key, and for an absurdly long one', async () => {
    expect401(await call(server, 'GET', '/me', { as: { key: `ak_${tag()}`, secret: server.admin.secret } }));
    expect401(await call(server, 'GET', '/me', { as: { key: 'k'.repeat(5000), secret: 's'.repeat(5000) } }));
  });

  it('refuses a request without credentials before acting: no user is created', async () => {
    const body = userBody();
    expect401(await call(server, 'POST', '/users', { as: null, body }));
    expect401(await call(server, 'POST', '/users', { as: { key: server.admin.key, secret: 'nope-nope-nope' }, body }));
    const found = await call(server, 'GET', `/users?nickname=${body.nickname}`);
    expect(found.body.total_items).toBe(0);
  });

  it('makes the key\'s user the caller', async () => {
    const me = await call(server, 'GET', '/me', { as: member.creds });
    expect(me.body.id).toBe(member.user.id);
    const admin = await call(server, 'GET', '/me');
    expect(admin.body.nickname).toBe('admin');
  });

  it('answers 403 api_access_denied to a key whose role lacks users.can_use_api (a user moved to Visitors)', async () => {
    const { user, creds } = await createUserWithKey(server);
    expect((await call(server, 'GET', '/me', { as: creds })).status).toBe(200);
    const sets = await call(server, 'GET', '/permission_sets?per_page=100');
    expect(sets.status).toBe(200);
    const byName = (name: string) => sets.body.items.find((s: { name: string }) => s.name === name).id as string;

    const moved = await call(server, 'PUT', `/users/${user.id}/role`, { body: { permission_set_id: byName('Visitors') } });
    expect(moved.status).toBe(200);
    expect(moved.body.permission_set_id).toBe(byName('Visitors'));

    const denied = await call(server, 'GET', '/me', { as: creds });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: { code: 'api_access_denied', message: expect.stringMatching(/can_use_api/), request_id: expect.any(String) } });
    const body = userBody();
    const create = await call(server, 'POST', '/users', { as: creds, body });
    expect(create.status).toBe(403);
    expect(create.body.error.code).toBe('api_access_denied');
    expect((await call(server, 'GET', `/users?nickname=${body.nickname}`)).body.total_items).toBe(0);

    // The role is read on every request: moving the user back gives the same key its access again.
    const back = await call(server, 'PUT', `/users/${user.id}/role`, { body: { permission_set_id: byName('Members') } });
    expect(back.status).toBe(200);
    expect((await call(server, 'GET', '/me', { as: creds })).status).toBe(200);
  });
});

describe('agora admin create-key', () => {
  it('prints {user_id, api_key, api_secret} as JSON, and the pair works for that user', async () => {
    const user = await createUser(server);
    const result = await runCli(['admin', 'create-key', '--db', server.db, '--user', user.id, '--json'], {
      home: server.dir,
    });
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(Object.keys(printed).sort()).toEqual(['api_key', 'api_secret', 'user_id']);
    expect(printed.user_id).toBe(user.id);
    expect(printed.api_key).toEqual(expect.any(String));
    expect(printed.api_secret).toEqual(expect.any(String));
    const me = await call(server, 'GET', '/me', { as: { key: printed.api_key, secret: printed.api_secret } });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(user.id);
  });

  it('without --user issues a key for the bootstrap administrator', async () => {
    const result = await runCli(['admin', 'create-key', '--db', server.db, '--json'], { home: server.dir });
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as { user_id: string; api_key: string; api_secret: string };
    const admin = await call(server, 'GET', '/me');
    expect(printed.user_id).toBe(admin.body.id);
    const me = await call(server, 'GET', '/me', { as: { key: printed.api_key, secret: printed.api_secret } });
    expect(me.body).toMatchObject({ id: admin.body.id, nickname: 'admin' });
    const admins = await call(server, 'GET', '/users?role=Admins');
    expect(admins.body.total_items).toBe(1);
  });

  it('fails for an unknown user and prints no key', async () => {
    const result = await runCli(['admin', 'create-key', '--db', server.db, '--user', 'f'.repeat(32), '--json'], {
      home: server.dir,
    });
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/not found/i);
  });

  it('stores neither API secrets nor passwords in clear in the store', async () => {
    const password = `pw${tag()}${tag()}7`;
    const user = await createUser(server, { password });
    const result = await runCli(['admin', 'create-key', '--db', server.db, '--user', user.id, '--json'], {
      home: server.dir,
    });
    const { api_key: apiKey, api_secret: apiSecret } = JSON.parse(result.stdout) as {
      api_key: string;
      api_secret: string;
    };
    const bytes = await storeBytes();
    // The search itself works: what is stored in clear is found.
    expect(bytes.includes(apiKey)).toBe(true);
    expect(bytes.includes(user.email)).toBe(true);
    expect(bytes.includes(apiSecret)).toBe(false);
    expect(bytes.includes(password)).toBe(false);
    expect(bytes.includes(server.admin.secret)).toBe(false);
  });
});

describe('what a Member may not do', () => {
  it('may not create users (403: creating needs users.import)', async () => {
    const body = userBody();
    const res = await call(server, 'POST', '/users', { as: member.creds, body });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(res.body.error.message).toMatch(/users\.import/);
    expect((await call(server, 'GET', `/users?nickname=${body.nickname}`)).body.total_items).toBe(0);
    const free = await call(server, 'GET', `/users/nickname_availability?nickname=${body.nickname}`);
    expect(free.body.available).toBe(true);
  });

  it('may not create page configurations (403)', async () => {
    const name = `Config ${tag()}`;
    const res = await call(server, 'POST', '/page_configurations', { as: member.creds, body: { name } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    const list = await call(server, 'GET', '/page_configurations?per_page=100');
    expect(list.body.items.map((c: { name: string }) => c.name)).not.toContain(name);
  });

  it('may not act for another user (POST /pages with their user_id → 403), but may act for themself', async () => {
    const other = await createUser(server);
    const config = await createPageConfiguration(server);
    const body = { name: `Page ${tag()}`, privacy: 'public', page_configuration_id: config.id };
    const res = await call(server, 'POST', '/pages', { as: member.creds, body: { ...body, user_id: other.id } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect((await call(server, 'GET', `/pages?owner=${other.id}`)).body).toEqual({ items: [], total_items: 0 });
    expect((await call(server, 'GET', `/pages?page_configuration_id=${config.id}`)).body.total_items).toBe(0);

    const own = await call(server, 'POST', '/pages', { as: member.creds, body: { ...body, user_id: member.user.id } });
    expect(own.status).toBe(201);
    expect(own.body.user_id).toBe(member.user.id);
  });

  it('may not follow on behalf of another user (403)', async () => {
    const [other, target] = await Promise.all([createUser(server), createUser(server)]);
    const res = await call(server, 'POST', '/follows', {
      as: member.creds,
      body: { followable_type: 'User', followable_id: target.id, user_id: other.id },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect((await call(server, 'GET', `/follows?user_id=${other.id}`)).body.total_items).toBe(0);
  });

  it('an administrator may act for anyone', async () => {
    const other = await createUser(server);
    const config = await createPageConfiguration(server);
    const res = await call(server, 'POST', '/pages', {
      body: { name: `Page ${tag()}`, privacy: 'public', page_configuration_id: config.id, user_id: other.id },
    });
    expect(res.status).toBe(201);
    expect(res.body.user_id).toBe(other.id);
  });
});
