import { describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { envFor, tsvRows } from './support.js';

const server = useServer();

describe('list --all', () => {
  it('follows the Link cursor to the end: every record once, in order, with the exact total', async () => {
    const adminId = ((await call(server, 'GET', '/me')).body as { id: string }).id;
    const config = await createPageConfiguration(server);
    for (let i = 0; i < 105; i += 15)
      await Promise.all(
        Array.from({ length: 15 }, (_, j) => createPage(server, { user_id: adminId, page_configuration_id: config.id, name: `P ${i + j}` })),
      );
    const run = (args: string[]) => runCli(args, { home: server.dir, env: envFor(server) });
    const [tsv, json] = await Promise.all([run(['pages', 'list', '--all']), run(['pages', 'list', '--all', '--json'])]);
    expect(tsv.code).toBe(0);
    const ids = tsvRows(tsv.stdout).map((r) => r[0]);
    const first = (await call(server, 'GET', '/pages?per_page=100')).body as { items: { id: string }[]; total_items: number };
    expect(first.total_items).toBeGreaterThan(100);
    expect(ids).toHaveLength(first.total_items);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(0, 100)).toEqual(first.items.map((p) => p.id));
    expect(JSON.parse(json.stdout)).toMatchObject({ total_items: first.total_items });
    expect((JSON.parse(json.stdout) as { items: unknown[] }).items).toHaveLength(first.total_items);
  });
});
