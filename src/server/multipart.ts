import { AppError, ErrorCode } from '../shared/errors.js';
import { utf8Text } from './bodies.js';

/** At most this many fields and files in one multipart/form-data body (the byte limit is the app's body limit). */
export const MULTIPART_LIMITS = { fields: 500, files: 5 };

const malformed = (why: string) => new AppError(400, ErrorCode.invalidBody, `The multipart/form-data body is malformed: ${why}`);

/** The boundary of a multipart Content-Type, or undefined. */
export function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]+)"|([^\s;"]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

/** A Content-Disposition parameter (`name`, `filename`): quoted (with backslash escapes) or a bare token. */
function parameter(disposition: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^\\s;"]+))`, 'i').exec(disposition);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}

/**
 * Reads a whole multipart/form-data body (RFC 7578) into its fields: repeated names become arrays, a file
 * part's value is its bytes, a part sent as `application/json` is parsed. A body that does not end with the
 * closing delimiter (cut short) or whose parts cannot be read is a 400, never an empty body. The fields go
 * into an object without a prototype, defined rather than assigned, so that any name (`__proto__`,
 * `constructor`) is a field like the others, for the input check to refuse by name.
 */
export function parseMultipart(body: Buffer, boundary: string): Record<string, unknown> {
  const delimiter = Buffer.from(`--${boundary}`);
  const fields: Record<string, unknown> = Object.create(null);
  const count = { fields: 0, files: 0 };
  // The first delimiter starts the body or a line (whatever precedes it is a preamble, ignored).
  let at = body.subarray(0, delimiter.length).equals(delimiter) ? 0 : body.indexOf(Buffer.from(`\r\n--${boundary}`));
  if (at < 0) throw malformed('no part delimited by its boundary');
  if (at > 0) at += 2;
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString('latin1') === '--') return fields;
    // Transport padding (spaces, tabs) may follow a delimiter before its line ends.
    while (body[at] === 0x20 || body[at] === 0x09) at++;
    if (body.subarray(at, at + 2).toString('latin1') !== '\r\n') throw malformed('cut short before its closing boundary');
    at += 2;
    const headersEnd = body.indexOf('\r\n\r\n', at, 'latin1');
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), at);
    if (next < 0) throw malformed('cut short before its closing boundary');
    if (headersEnd < 0 || headersEnd > next) throw malformed('a part without its headers');
    const headers = new Map<string, string>();
    for (const line of utf8Text(body.subarray(at, headersEnd), "A multipart part's headers").split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw malformed('a part header is not "Name: value"');
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const disposition = headers.get('content-disposition') ?? '';
    const name = parameter(disposition, 'name');
    if (!/^form-data\b/i.test(disposition) || name === undefined) throw malformed('a part without Content-Disposition: form-data; name');
    const bytes = body.subarray(headersEnd + 4, next);
    let value: unknown;
    if (parameter(disposition, 'filename') !== undefined) {
      if (++count.files > MULTIPART_LIMITS.files) throw tooManyParts();
      value = Buffer.from(bytes);
    } else {
      if (++count.fields > MULTIPART_LIMITS.fields) throw tooManyParts();
      value = utf8Text(bytes, `The multipart part ${JSON.stringify(name.slice(0, 100))}`);
      if (/^application\/json\b/i.test(headers.get('content-type') ?? '')) value = jsonPart(name, value as string);
    }
    const previous = Object.hasOwn(fields, name) ? fields[name] : undefined;
    fields[name] = previous === undefined ? value : ([] as unknown[]).concat(previous, [value]);
    at = next + 2;
  }
}

function jsonPart(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError(400, ErrorCode.invalidBody, `The multipart part ${JSON.stringify(name.slice(0, 100))} is not valid JSON`);
  }
}

const tooManyParts = () =>
  new AppError(
    413,
    ErrorCode.tooManyParts,
    `A multipart/form-data body may carry at most ${MULTIPART_LIMITS.fields} fields and ${MULTIPART_LIMITS.files} files`,
  );
