import { afterAll, describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUser } from '../helpers/api.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { removeDir, startServer, type RunningServer } from '../helpers/server.js';
import { onPostgres, openRaw } from '../helpers/store-target.js';

/**
 * `kill -9` of the real server in the middle of 200 concurrent writes, three rounds: every write that was
 * acknowledged is there after a restart, the database's integrity holds, and every outbox row written with
 * an acknowledged change is delivered after the restart.
 */
// 200 writes at once open 200 connections from one address: above the default limit on connections not yet
// authenticated (100), some could be answered 429 before their request authenticates.
const ENV = { AGORA_WEBHOOKS_ALLOW_PRIVATE: '1', AGORA_WEBHOOK_RETRY_SCHEDULE: '1,1,1', AGORA_MAX_UNAUTH_CONNECTIONS_PER_ADDRESS: '1000' };
let server: RunningServer | undefined;
let receiver: Receiver | undefined;
afterAll(async () => {
  await server?.stop('SIGKILL');
  await receiver?.close();
  if (server) removeDir(server.dir);
});

describe('crash safety', () => {
  it('keeps every acknowledged write and delivers every outbox row across three kill -9 rounds', async () => {
    receiver = await startReceiver('ok');
    server = await startServer({ env: ENV });
    const hook = await call(server, 'POST', '/webhooks', { body: { url: receiver.url, events: ['page_access_request.created'] } });
    expect(hook.status).toBe(201);
    const requester = await createUser(server);
    const acknowledged = { configs: [] as string[], requests: [] as string[] };

    for (let round = 0; round < 3; round += 1) {
      const config = await createPageConfiguration(server);
      const pages = await Promise.all(
        Array.from({ length: 100 }, () => createPage(server!, { user_id: requester.id, page_configuration_id: config.id, privacy: 'private' })),
      );
      const running = server;
      let answered = 0;
      let killed = false;
      const kill = () => {
        if (killed) return;
        killed = true;
        running.process.kill('SIGKILL');
      };
      const write = async (kind: 'configs' | 'requests', i: number) => {
        try {
          const res =
            kind === 'configs'
              ? await call(running, 'POST', '/page_configurations', { body: { name: `Crash ${round}.${i}` } })
              : await call(running, 'POST', '/page_access_requests', { body: { page_id: pages[i]!.id, user_id: requester.id } });
          if (res.status === 201) acknowledged[kind].push(res.body.id);
          else expect(res.status, JSON.stringify(res.body)).toBe(201);
          // Killed once a part of the writes has been answered: the others are in flight or not yet sent.
          if (++answered === 60) kill();
        } catch {
          // The connection died with the server: not acknowledged, so nothing is owed.
        }
      };
      await Promise.all(Array.from({ length: 200 }, (_, i) => write(i % 2 ? 'requests' : 'configs', i >> 1)));
      kill();
      await running.stop();
      // The kill came mid-write: some of the 200 were never answered.
      expect(answered).toBeGreaterThanOrEqual(60);
      expect(answered).toBeLessThan(200);

      // SQLite checks its file after the kill (PostgreSQL recovers on its own: the server process was agora's).
      if (!onPostgres) {
        const raw = await openRaw(running.db);
        expect((await raw.all<{ integrity_check: string }>('PRAGMA integrity_check'))[0]!.integrity_check).toBe('ok');
        await raw.close();
      }

      server = await startServer({ env: ENV, dir: running.dir });
      for (const id of acknowledged.configs) expect((await call(server, 'GET', `/page_configurations/${id}`)).status, id).toBe(200);
      const stored = await call(server, 'GET', `/page_access_requests?user_id=${requester.id}&per_page=100&page=1`);
      expect(stored.status).toBe(200);
      const all = new Set<string>();
      for (let page = 1; page <= Math.ceil(stored.body.total_items / 100); page += 1) {
        const res = await call(server, 'GET', `/page_access_requests?user_id=${requester.id}&per_page=100&page=${page}`);
        for (const item of res.body.items) all.add(item.id);
      }
      for (const id of acknowledged.requests) expect(all.has(id), id).toBe(true);
      // Every stored request, acknowledged or not, has its delivery, and each one reaches the receiver.
      await receiver.waitFor(
        (reqs) => [...all].every((id) => reqs.some((r) => r.body?.data?.id === id)),
        { timeoutMs: 20_000, what: `the deliveries of round ${round}` },
      );
    }
    expect(acknowledged.configs.length + acknowledged.requests.length).toBeGreaterThanOrEqual(180);
  }, 120_000);
});
