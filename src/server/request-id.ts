import type { IncomingMessage } from 'node:http';
import { newId } from '../shared/ids.js';

/** A client's id is kept when it is sane: visible ASCII, at most 128 characters. */
const SANE = /^[\x21-\x7e]{1,128}$/;

/** The id of a request: the client's `X-Request-Id` when sane, else a new one. */
export function requestIdOf(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && SANE.test(sent) ? sent : newId();
}
