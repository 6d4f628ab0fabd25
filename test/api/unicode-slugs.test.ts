import { describe, expect, it } from 'vitest';
import { slugify } from '../../src/domain/slugs.js';
import { useApp } from '../helpers/app.js';

const t = useApp();

describe('slugs of names in any script', () => {
  it('keep the letters of every script, drop Latin accents, and fall back only when nothing is left', () => {
    expect(slugify('Café des Arts!', 'page')).toBe('cafe-des-arts');
    expect(slugify('Книжный клуб', 'page')).toBe('книжный-клуб');
    expect(slugify('読書会 2026', 'page')).toBe('読書会-2026');
    expect(slugify('한국 모임', 'page')).toBe('한국-모임');
    expect(slugify('नमस्ते दुनिया', 'page')).toBe('नमस्ते-दुनिया');
    expect(slugify('🎉🎉', 'page')).toBe('page');
    expect(Array.from(slugify('я'.repeat(100), 'page'))).toHaveLength(60);
  });

  it('a page named in Cyrillic gets its own slug, found by the slug filter, and a second one a suffix', async () => {
    const config = await t.call('POST', '/page_configurations', { body: { name: `Unicode ${Date.now()}` } });
    const body = { name: 'Книжный клуб', privacy: 'public', page_configuration_id: config.body.id, user_id: t.admin.id };
    const first = await t.call('POST', '/pages', { body });
    const second = await t.call('POST', '/pages', { body });
    expect(first.status).toBe(201);
    expect(first.body.slug).toBe('книжный-клуб');
    expect(second.body.slug).toBe('книжный-клуб-2');
    const found = await t.call('GET', `/pages?slug=${encodeURIComponent('книжный-клуб')}`);
    expect(found.body.items.map((p: { id: string }) => p.id)).toEqual([first.body.id]);
  });
});
