import { describe, expect, it } from 'vitest';
import { utf8Only } from '../../src/cli/import/read-rows.js';

/** The bytes fed to the import's UTF-8 check in these chunks: what it passed on, or its error's message. */
async function check(...chunks: Buffer[]): Promise<string> {
  const t = utf8Only('ndjson');
  const passed: Buffer[] = [];
  t.on('data', (c: Buffer) => passed.push(c));
  const ended = new Promise<string>((ok) => {
    t.on('error', (e) => ok(e.message));
    t.on('end', () => ok(Buffer.concat(passed).toString('utf8')));
  });
  for (const c of chunks) t.write(c);
  t.end();
  return ended;
}
const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

describe("the import's UTF-8 check names the first byte that is not UTF-8", () => {
  it('in one chunk: a Latin-1 é at byte 4', async () => {
    expect(await check(bytes('Jos', [0xe9], '\n'))).toMatch(/at byte 4\)/);
  });

  it('after a character split between chunks, the bad byte further on (not the next chunk\'s first)', async () => {
    // "abc", é split (C3 | A9), "xyz", then a Latin-1 é: byte 9.
    expect(await check(bytes('abc', [0xc3]), bytes([0xa9], 'xyz', [0xe9], 'q'))).toMatch(/at byte 9\)/);
    // A four-byte emoji split 1 + 3, then a stray continuation byte: 3 + 4 + 1 = byte 8.
    const emoji = Buffer.from('😀');
    expect(await check(bytes('abc', [emoji[0]!]), bytes([...emoji.subarray(1)], [0x80]))).toMatch(/at byte 8\)/);
  });

  it('a U+FFFD written as UTF-8 is text, the bad byte after it is named', async () => {
    expect(await check(bytes('a\uFFFDbc', [0xff]))).toMatch(/at byte 7\)/);
  });

  it('a file that stops inside a character: where that character starts', async () => {
    expect(await check(bytes('abcdef'), bytes('gh', [0xe2, 0x82]))).toMatch(/at byte 9\)/);
    expect(await check(bytes('ab', [0xf0]), bytes([0x9f]))).toMatch(/at byte 3\)/);
  });

  it('passes UTF-8 split anywhere through unchanged', async () => {
    const text = 'José 😀 Müller ✓\n';
    const all = Buffer.from(text);
    for (let cut = 1; cut < all.length; cut++) expect(await check(all.subarray(0, cut), all.subarray(cut))).toBe(text);
  });
});
