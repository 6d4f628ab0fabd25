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

/** Resolves a name to all its addresses (`dns.lookup` with `all`). */
export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;
const systemResolver: Resolver = (host) => lookup(host, { all: true });

/** `promise`, or the signal's reason once it aborts first (what is waited for is left to finish unheard). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener('abort', abort), resolve(value)),
      (error) => (signal.removeEventListener('abort', abort), reject(error)),
    );
  });
}

/**
 * POSTs one webhook message. The receiver's name is resolved once, every address is checked, and the
 * connection goes to the address that was checked (so a name cannot be re-pointed at a private address
 * between the check and the connection: DNS rebinding). Answers the status code; the body is discarded.
 * `timeoutMs` bounds the whole delivery, the name's resolution included: a resolver that never answers holds
 * neither the delivery nor the server's shutdown past it. (The system resolver, `getaddrinfo` as `dns.lookup`
 * uses it, cannot be cancelled: a lookup that hangs keeps one of libuv's four threads until the system's own
 * resolver timeout ends it. It is the resolver that reads /etc/hosts as every other program does.)
 */
export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivate: boolean; resolve?: Resolver },
): Promise<number> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const addresses = await untilAborted((options.resolve ?? systemResolver)(host), deadline);
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
        signal: deadline,
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
