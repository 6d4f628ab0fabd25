import { describe, expect, it } from 'vitest';
import { createPage, createPageConfiguration, createUser } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { envFor, freshHome } from './support.js';

/**
 * A table shows names where the API has ids (a page's owner and configuration). They are fetched with one
 * `ids=` list call per kind, not one GET per row: `pages list` costs three requests however many owners.
 */
const server = useServer({ args: ['--log'] });

const requestsLogged = () =>
  server
    .errors()
    .split('\n')
    .filter((line) => line.includes('"incoming request"'))
    .map((line) => (JSON.parse(line) as { req: { method: string; url: string } }).req)
    .map((req) => `${req.method} ${req.url.replace(/ids=[^&]*/, 'ids=…')}`);

describe('a table of records with names', () => {
  it('asks for the names of 12 owners and their configurations in one request each', async () => {
    const configs = [await createPageConfiguration(server), await createPageConfiguration(server)];
    const owners = [];
    for (let i = 0; i < 12; i++) owners.push(await createUser(server));
    for (const [i, owner] of owners.entries())
      await createPage(server, { user_id: owner.id, page_configuration_id: configs[i % 2]!.id, name: `Club ${i}` });
    const dir = freshHome(server);
    const before = requestsLogged().length;
    const result = await runCli(['pages', 'list', '--per-page', '12', '--fields', 'name,config,owner'], { home: dir, env: envFor(server) });
    expect(result.code).toBe(0);
    const rows = result.stdout.trim().split('\n').map((line) => line.split('\t'));
    expect(rows).toHaveLength(12);
    const ownerOf = new Map(owners.map((o, i) => [`Club ${i}`, [configs[i % 2]!.name, o.nickname]]));
    for (const [name, config, owner] of rows) expect([config, owner]).toEqual(ownerOf.get(name!));
    expect(requestsLogged().slice(before).sort()).toEqual(
      ['GET /public-api/v1/pages?page=1&per_page=12', 'GET /public-api/v1/page_configurations?ids=…&per_page=100', 'GET /public-api/v1/users?ids=…&per_page=100'].sort(),
    );
  });
});
