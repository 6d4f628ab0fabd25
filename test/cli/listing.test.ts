import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, nextLink } from '../../src/client/api-client.js';
import { fetchList } from '../../src/cli/command-kit.js';

/**
 * `--all` walks a list by the `Link: rel="next"` cursor when the server sends one (docs/api.md), else by page
 * numbers. A small real HTTP server answers here as a cursor-paging server would; the seen queries are kept.
 */
// Page configurations: every answer the client reads is checked against its route's schema.
const records = Array.from({ length: 250 }, (_, i) => ({
  id: `r${i}`,
  name: `Kind ${i}`,
  description: null,
  created_at: '2026-11-20T10:00:00.000Z',
  updated_at: '2026-11-20T10:00:00.000Z',
}));
const seen: string[] = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    seen.push(url.search);
    const per = Number(url.searchParams.get('per_page'));
    const from = url.searchParams.has('cursor') ? Number(url.searchParams.get('cursor')) : 0;
    const items = records.slice(from, from + per);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (from + per < records.length)
      headers.link = `<${url.pathname}?per_page=${per}&cursor=${from + per}>; rel="next", <${url.pathname}?page=1>; rel="first"`;
    res.writeHead(200, headers).end(JSON.stringify({ items, total_items: records.length }));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

describe('walking a list', () => {
  it('follows the rel="next" cursor to the end, and stops at --limit', async () => {
    const client = new ApiClient({ baseUrl: base });
    try {
      seen.length = 0;
      const all = await fetchList<{ id: string }>(client, '/page_configurations', { state: 'x' }, { perPage: 25, all: true });
      expect(all.items.map((r) => r.id)).toEqual(records.map((r) => r.id));
      expect(all).toMatchObject({ total_items: 250, walked: true, limited: false });
      // The first page by number, then the cursors the server handed out, the filter kept on each.
      expect(seen).toEqual(['?state=x&page=1&per_page=100', '?state=x&per_page=100&cursor=100', '?state=x&per_page=100&cursor=200']);
      const limited = await fetchList<{ id: string }>(client, '/page_configurations', {}, { perPage: 25, limit: 3 });
      expect(limited.items).toHaveLength(3);
      expect(limited.limited).toBe(true);
      const most = await fetchList<{ id: string }>(client, '/page_configurations', {}, { perPage: 25, limit: 180 });
      expect(most.items.map((r) => r.id)).toEqual(records.slice(0, 180).map((r) => r.id));
    } finally {
      await client.close();
    }
  });

  it('reads the next link among others, with or without quotes', () => {
    expect(nextLink('</a?page=1>; rel="first", </a?cursor=abc&per_page=2>; rel="next"')).toEqual({ cursor: 'abc', per_page: '2' });
    expect(nextLink('<http://h/a?cursor=z>; rel=next')).toEqual({ cursor: 'z' });
    expect(nextLink('</a?page=1>; rel="first"')).toBeUndefined();
    expect(nextLink(undefined)).toBeUndefined();
  });
});
