import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DUMMY_HASH, hashSecret, SCRYPT_COST, scryptCostFrom, verifySecret } from '../../src/domain/secrets.js';

/** AGORA_SCRYPT_COST: the cost of new hashes (log2 of scrypt's N); every hash carries its own, so any cost verifies. */
describe('scrypt cost', () => {
  it('is 14 (N = 16,384) unless set; a value outside 10–17 or not whole stops with the variable named', () => {
    expect(scryptCostFrom({})).toBe(14);
    expect(scryptCostFrom({ AGORA_SCRYPT_COST: '' })).toBe(14);
    expect(scryptCostFrom({ AGORA_SCRYPT_COST: '16' })).toBe(16);
    for (const bad of ['9', '18', '14.5', 'high'])
      expect(() => scryptCostFrom({ AGORA_SCRYPT_COST: bad })).toThrow(/AGORA_SCRYPT_COST must be a whole number from 10 to 17/);
  });

  it('new hashes use the configured cost; a hash made at another cost still verifies, by the cost it carries', async () => {
    // The suite runs at cost 10 (vitest.config.ts); production's default is checked above.
    expect(SCRYPT_COST).toBe(Number(process.env.AGORA_SCRYPT_COST ?? 14));
    const made = await hashSecret('s3cret');
    expect(made.split('$').slice(0, 4)).toEqual(['scrypt', String(2 ** SCRYPT_COST), '8', '1']);
    expect(await verifySecret('s3cret', made)).toBe(true);
    // A hash as the default cost makes it (N = 16,384), computed here by node:crypto itself.
    const salt = Buffer.from('0123456789abcdef');
    const atDefault = ['scrypt', 16384, 8, 1, salt.toString('base64url'), scryptSync('s3cret', salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64url')].join('$');
    expect(await verifySecret('s3cret', atDefault)).toBe(true);
    expect(await verifySecret('s3cret!', atDefault)).toBe(false);
  });

  it('never matches a stored hash whose parameters are not ours (it could ask for minutes of CPU), and checks unknown keys at the configured cost', async () => {
    const [, , , , salt, hash] = (await hashSecret('s3cret')).split('$');
    const at = (n: number | string, r: number | string, p: number | string) => ['scrypt', n, r, p, salt, hash].join('$');
    for (const stored of [at(1024, 8, 16384), at(1000, 8, 1), at(2 ** 20, 8, 1), at(512, 8, 1), at(1024, 64, 1), at('x', 8, 1)])
      expect(await verifySecret('s3cret', stored), stored).toBe(false);
    // An unknown key is checked against a hash at the same cost as the stored ones.
    expect(DUMMY_HASH.split('$').slice(0, 4)).toEqual(['scrypt', String(2 ** SCRYPT_COST), '8', '1']);
    expect(await verifySecret('anything', DUMMY_HASH)).toBe(false);
  });
});
