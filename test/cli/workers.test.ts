import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { PREFIX, removeDir, startServer, type RunningServer } from '../helpers/server.js';

/** One request on a connection of its own, so that the cluster hands consecutive requests to different workers. */
function fresh(server: RunningServer, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((ok, fail) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${server.url}${PREFIX}${path}`,
      {
        method,
        agent: false,
        headers: {
          'api-key': server.admin.key,
          'api-secret': server.admin.secret,
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => ok({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', fail);
    req.end(payload);
  });
}

describe('agora serve --workers', () => {
  it('prints one listening line, reads its writes across workers, stops all on SIGTERM, and keeps counts exact', async () => {
    const server = await startServer({ args: ['--workers', '2'] });
    try {
      expect(server.output().split('\n').filter(Boolean)).toEqual([`listening on ${server.url}`]);
      for (let i = 1; i <= 6; i++) {
        const created = await fresh(server, 'POST', '/page_configurations', { name: `Config ${i}` });
        expect(created.status).toBe(201);
        // The next request lands on the other worker: it sees the write all the same.
        const listed = await fresh(server, 'GET', '/page_configurations?per_page=100');
        expect(listed.body.total_items).toBe(i);
        expect(listed.body.items.map((c: { id: string }) => c.id)).toContain(created.body.id);
      }
      expect(await server.stop('SIGTERM')).toBe(0);
      expect(server.output().split('\n').filter(Boolean)).toHaveLength(1);
      const check = await runCli(['admin', 'check', '--db', server.db], { home: server.dir });
      expect(check.stdout).toBe('counts agree with a recount: no drift\n');
      expect(check.code).toBe(0);
    } finally {
      await server.stop();
      removeDir(server.dir);
    }
  });
});
