import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const PREFIX = 'enc:v1:';

/** A stored secret that cannot be opened: no key to open it with, or not the one it was sealed with. */
export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

/**
 * Encrypts secrets the server must read back in clear (webhook signing secrets) with AES-256-GCM, under a
 * key kept outside the database: a copy of the database alone does not give them away.
 */
export class SecretBox {
  /** `keyOf`: the key (a file not there yet made when `creating`, as a seal needs), or null; `missing`: why none. */
  private constructor(private readonly keyOf: (creating: boolean) => Buffer | null, private readonly missing = '') {}

  /** From a passphrase or key of any length (AGORA_SECRET_KEY), hashed to 256 bits. */
  static fromString(secret: string): SecretBox {
    if (secret.length < 16) throw new Error('AGORA_SECRET_KEY must be at least 16 characters');
    const key = createHash('sha256').update(secret).digest();
    return new SecretBox(() => key);
  }

  /** A key for a throwaway store (`:memory:`). */
  static ephemeral(): SecretBox {
    const key = randomBytes(32);
    return new SecretBox(() => key);
  }

  /**
   * The key file beside the database, created 0600 by the first seal: work that seals nothing (offline key
   * administration, a copy's source) makes none, later taken for the key its secrets were sealed with. One there
   * already is read at once: a bad one fails the opening (serve's start), not the first webhook, and is never kept
   * as the key. Written whole, then linked to its name: of two processes making it the first wins, none reads it empty.
   */
  static fromKeyFile(path: string): SecretBox {
    const read = () => {
      const bytes = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
      if (bytes.length !== 32) throw new Error(`${path} does not hold a 256-bit key (base64)`);
      return bytes;
    };
    let key = existsSync(path) ? read() : undefined;
    return new SecretBox((creating) => {
      if (key || (!creating && !existsSync(path))) return key ?? null;
      if (!existsSync(path)) {
        const draft = `${path}.${process.pid}-${randomBytes(4).toString('hex')}`;
        writeFileSync(draft, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
        try {
          linkSync(draft, path);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        } finally {
          rmSync(draft, { force: true });
        }
      }
      return (key = read());
    }, `a stored secret cannot be opened: there is no key file ${path} (nor AGORA_SECRET_KEY)`);
  }

  /** No key: a store opened only for work that never reads or writes a secret (offline key administration). */
  static unavailable(reason: string): SecretBox {
    return new SecretBox(() => null, reason);
  }

  seal(plain: string): string {
    const key = this.keyOf(true);
    if (!key) throw new Error(this.missing);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
  }

  open(sealed: string): string {
    const key = this.keyOf(false);
    if (!key) throw new SecretKeyError(this.missing);
    const [iv, tag, body] = sealed.slice(PREFIX.length).split('.').map((p) => Buffer.from(p, 'base64url'));
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv!);
      decipher.setAuthTag(tag!);
      return Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8');
    } catch {
      const why = 'the secret key (AGORA_SECRET_KEY or <db>.key) is not the one it was sealed with';
      throw new SecretKeyError(`a stored secret cannot be decrypted: ${why}`);
    }
  }
}
