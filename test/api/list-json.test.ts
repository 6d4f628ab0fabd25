import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { removeDir } from '../helpers/server.js';

/**
 * The pages list's records come as JSON text written by SQLite (`json_object`) where the page is read straight
 * from the store's reading connection: they must be the same bytes `JSON.stringify` gives for the record a
 * single read answers, whatever the text holds.
 */
let t: TestApp;
beforeAll(async () => {
  // Without the response cache, which would answer the repeated URLs from the first answer.
  t = await startApp({ responseCache: false });
});
afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

const raw = async (url: string) => {
  const key = t.admin;
  const res = await t.app.inject({ method: 'GET', url: `/public-api/v1${url}`, headers: { 'api-key': key.key, 'api-secret': key.secret } });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
};

describe('a list written from JSON text', () => {
  it('is byte for byte what the records themselves serialise to, quotes, escapes and all', async () => {
    const config = await t.call('POST', '/page_configurations', { body: { name: 'Texts' } });
    const texts = [
      ['Zoë "Q" \\ back/slash 😀', 'line1\nline2\t"quoted" \\ é 中文 \u2028 \u2029 \u007f end'],
      ["it's <b>&amp;</b>", null],
      ['\u00e9\u0301 combining', '\r\n\f\b'],
    ] as const;
    const ids: string[] = [];
    for (const [name, description] of texts) {
      const page = await t.call('POST', '/pages', {
        body: { name, description, privacy: 'public', page_configuration_id: config.body.id, user_id: t.admin.id },
      });
      expect(page.status, JSON.stringify(page.body)).toBe(201);
      ids.push(page.body.id);
    }
    const singles = await Promise.all(ids.map((id) => raw(`/pages/${id}`)));
    // Three times: a list's fetch is compiled from its second use on, then read as JSON text.
    for (let round = 0; round < 3; round++) {
      const list = await raw(`/pages?page_configuration_id=${config.body.id}&per_page=2`);
      const next = await raw(`/pages?page_configuration_id=${config.body.id}&per_page=2&page=2`);
      expect(list).toBe(`{"items":[${singles[0]},${singles[1]}],"total_items":3}`);
      expect(next).toBe(`{"items":[${singles[2]}],"total_items":3}`);
    }
  });
});
