import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedMembers, startApp, type TestApp } from '../helpers/app.js';
import { PREFIX, removeDir } from '../helpers/server.js';

/**
 * `GET /users/export` streams (docs/api.md): the users are read from the store 500 at a time as the client takes
 * them, so that the server holds a bounded part of the export whatever the community's size. Shown on a real
 * socket: a reader that stops reading stops the store being read (backpressure), and one that reads gets them all.
 */
const USERS = 10_000;
const BATCH = 500;
let t: TestApp;
let socketPath: string;
let batchesRead = 0;

beforeAll(async () => {
  t = await startApp({
    storeOptions: {
      onQuery: (sql) => {
        // The export's read: the next users after a key, in key order, a batch at a time.
        if (/order by "users"\."id" limit (\?|\$\d+)/i.test(sql)) batchesRead++;
      },
    },
  });
  await seedMembers(t.store, USERS);
  // A Unix socket: its buffers are a few hundred KiB, where loopback TCP grows its own to megabytes, which
  // would hide from the reader how much the server read ahead.
  socketPath = join(t.dir, 'agora.sock');
  await t.app.listen({ path: socketPath });
}, 120_000);

afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

function openExport(format: 'ndjson' | 'csv', as = t.admin as { key: string; secret: string }): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request({
      socketPath,
      path: `${PREFIX}/users/export?format=${format}`,
      headers: { 'api-key': as.key, 'api-secret': as.secret },
    });
    req.on('response', resolve).on('error', reject).end();
  });
}

/** Resolves once the export has read no further batch for a few turns of the event loop and 50 ms. */
async function settled(): Promise<number> {
  let last = -1;
  let still = 0;
  while (still < 5) {
    await new Promise((ok) => setTimeout(ok, 10));
    still = batchesRead === last ? still + 1 : 0;
    last = batchesRead;
  }
  return batchesRead;
}

describe('GET /users/export', () => {
  it('stops reading the store while its reader does not read, and sends every user once it does', async () => {
    batchesRead = 0;
    const res = await openExport('ndjson');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['content-length']).toBeUndefined();
    res.pause();
    const whilePaused = await settled();
    const total = Math.ceil((USERS + 1) / BATCH);
    // The batches in flight (one being written, one in the stream's buffer, the sockets' buffers): measured 3
    // of the 21, whatever the number of users.
    expect(whilePaused).toBeGreaterThan(0);
    expect(whilePaused).toBeLessThanOrEqual(6);

    let lines = 0;
    let chunks = 0;
    let rest = '';
    const ids = new Set<string>();
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      chunks++;
      const parts = (rest + chunk).split('\n');
      rest = parts.pop()!;
      for (const line of parts) {
        lines++;
        ids.add(JSON.parse(line).id);
      }
    });
    res.resume();
    await new Promise((ok) => res.on('end', ok));
    expect(rest).toBe('');
    expect(lines).toBe(USERS + 1); // the seeded members and the Admin
    expect(ids.size).toBe(USERS + 1);
    expect(chunks).toBeGreaterThan(total / 2);
    expect(batchesRead).toBe(total + 1); // every batch, and the empty one that ends the walk
  }, 120_000);

  it('streams CSV the same way: a header, then one row per user', async () => {
    const res = await openExport('csv');
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['transfer-encoding']).toBe('chunked');
    res.setEncoding('utf8');
    let text = '';
    for await (const chunk of res) text += chunk;
    const rows = text.split('\r\n');
    expect(rows[0]).toBe('id,first_name,last_name,nickname,email,role,accept_conditions,accept_confidentiality,created_at');
    expect(rows.at(-1)).toBe('');
    expect(rows.length - 2).toBe(USERS + 1);
  }, 120_000);

  it('stops, cut short, once its caller may no longer export: suspended meanwhile, they get no further batch', async () => {
    // A delegate given users.export (an Admin's acts are the same): the export is theirs while their key may read it,
    // as a live stream is; the check is made again before each batch, not only before the first.
    const exporter = await t.member();
    const role = (await t.call('POST', '/permission_sets', { body: { name: 'Exporters', permissions: { users: { can_use_api: true, export: true } } } })).body;
    expect((await t.call('PUT', `/users/${exporter.user.id}/role`, { body: { permission_set_id: role.id } })).status).toBe(200);
    const res = await openExport('ndjson', exporter.creds);
    expect(res.statusCode).toBe(200);
    res.pause();
    await settled();
    expect((await t.call('PUT', `/users/${exporter.user.id}/suspension`, { body: { reason: 'took the members list' } })).status).toBe(200);
    res.setEncoding('utf8');
    let lines = 0;
    let rest = '';
    res.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop()!;
      lines += parts.length;
    });
    res.resume();
    // The response is cut (never ended as a whole one), so that the client knows the export is not complete.
    const ending = await new Promise<string>((ok) => {
      res.on('end', () => ok(res.complete ? 'complete' : 'cut'));
      res.on('aborted', () => ok('cut'));
      res.on('error', () => ok('cut'));
    });
    expect(ending).toBe('cut');
    expect(lines).toBeLessThan(USERS + 2);
    expect(lines).toBeLessThanOrEqual(6 * BATCH);
  }, 120_000);
});
