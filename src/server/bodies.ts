import { isUtf8 } from 'node:buffer';
import { AppError, ErrorCode } from '../shared/errors.js';

/** Bytes of a body (or of a part of one) as text: bytes that are not UTF-8 are a 400, never replaced and stored. */
export function utf8Text(bytes: Buffer, what = 'The body'): string {
  if (!isUtf8(bytes)) throw new AppError(400, ErrorCode.invalidBody, `${what} is not valid UTF-8`);
  return bytes.toString('utf8');
}

/**
 * An application/x-www-form-urlencoded body: repeated names become arrays, `+` is a space, and an escape that does
 * not decode (`%`, `%FF`, half a character) is a 400, not a value kept as it was sent. The fields go into an object
 * without a prototype, so that any name (`__proto__`) is a field like the others, for the input check to refuse.
 */
export function parseUrlencoded(bytes: Buffer): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = Object.create(null);
  for (const pair of utf8Text(bytes).split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const name = decode(at === -1 ? pair : pair.slice(0, at));
    const value = at === -1 ? '' : decode(pair.slice(at + 1));
    // Appended in place: a name repeated n times costs n, not n² (a 1 MiB body holds half a million of them).
    const previous = fields[name];
    if (previous === undefined) fields[name] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else fields[name] = [previous, value];
  }
  return fields;
}

/**
 * Why the JSON parser refused a body. It refuses a `__proto__` key, and a `constructor` key holding a `prototype`,
 * at any depth (so that nothing downstream can take one for an object's prototype) in the words it uses for a body
 * that is not JSON at all: JSON that `JSON.parse` reads is valid, and the refusal names what is not accepted.
 */
export function jsonRefusal(error: Error, text: string): Error {
  try {
    JSON.parse(text);
  } catch {
    return error;
  }
  const message = 'A JSON body may not have a key named "__proto__", nor a "constructor" key whose value has a "prototype" key, at any depth: remove it';
  return new AppError(400, ErrorCode.invalidBody, message);
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new AppError(400, ErrorCode.invalidBody, `The form body has an escape that is not UTF-8 percent-encoded: ${JSON.stringify(text.slice(0, 100))}`);
  }
}
