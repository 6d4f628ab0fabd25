import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress } from '../domain/webhook-targets.js';

/** A receiver that resolves to a loopback or private address: the delivery fails at once, without retries. */
export class BlockedTargetError extends Error {
  constructor() {
    super('the receiver resolves to a loopback or private address');
    this.name = 'BlockedTargetError';
  }
}

/**
 * POSTs one webhook message. The receiver's name is resolved once, every address is checked, and the
 * connection goes to the address that was checked (so a name cannot be re-pointed at a private address
 * between the check and the connection: DNS rebinding). Answers the status code; the body is discarded.
 */
export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<number> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const addresses = await lookup(host, { all: true });
  if (!options.allowPrivate && (addresses.length === 0 || addresses.some((a) => isPrivateAddress(a.address))))
    throw new BlockedTargetError();
  const pinned = addresses[0]!;
  const pinnedLookup: LookupFunction = (_name, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all)
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: pinnedLookup,
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (res) => {
        res.resume();
        res.on('error', () => undefined);
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
