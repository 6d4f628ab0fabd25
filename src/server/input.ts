import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { AppError, ErrorCode, invalidFields, type FieldError } from '../shared/errors.js';

/**
 * Every request's input goes through here, whatever route it reaches: bodies are strict (a field the
 * schema does not name is refused, each one named, so that a typo in a script fails loudly) and text
 * must be valid Unicode. Routes opt out of strictness only by declaring a `.loose()` object.
 */

const fieldsOf = (error: z.ZodError): FieldError[] =>
  error.issues.map((issue) => ({
    field: issue.path.length ? issue.path.map(String).join('.') : 'body',
    message: issue.message,
  }));

interface SchemaDef {
  type: string;
  shape?: Record<string, unknown>;
  catchall?: { _zod: { def: SchemaDef } };
  in?: { _zod: { def: SchemaDef } };
  out?: { _zod: { def: SchemaDef } };
  innerType?: { _zod: { def: SchemaDef } };
}

/** The field names an object schema accepts, looking through pipes, preprocessing and defaults; undefined = any. */
export function knownFields(schema: z.ZodType): Set<string> | undefined {
  return fieldsOfDef((schema as unknown as { _zod: { def: SchemaDef } })._zod.def);
}

function fieldsOfDef(def: SchemaDef): Set<string> | undefined {
  switch (def.type) {
    case 'object':
      if (def.catchall && def.catchall._zod.def.type !== 'never') return undefined;
      return new Set(Object.keys(def.shape ?? {}));
    case 'pipe':
      return (def.in && fieldsOfDef(def.in._zod.def)) ?? (def.out && fieldsOfDef(def.out._zod.def));
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
      return def.innerType && fieldsOfDef(def.innerType._zod.def);
    default:
      return undefined;
  }
}

// In a `u` regular expression a well-formed surrogate pair is one code point: only lone halves match.
const LONE_SURROGATE = /\p{Cs}/u;

/** Paths of the strings (and keys) in a value that are not valid Unicode. */
function invalidText(value: unknown, path: string, found: string[], depth = 0): void {
  if (typeof value === 'string') {
    if (LONE_SURROGATE.test(value)) found.push(path);
  } else if (value && typeof value === 'object' && depth < 32 && !Buffer.isBuffer(value)) {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      const at = path ? `${path}.${key}` : key;
      if (LONE_SURROGATE.test(key)) found.push(at);
      else invalidText(item, at, found, depth + 1);
    }
  }
}

const NOT_UNICODE = 'must be valid Unicode text (it holds a lone UTF-16 surrogate)';
export const UNKNOWN_FIELD = 'is not a field of this request';

export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body)))
    throw new AppError(400, ErrorCode.invalidBody, 'The request body must be an object of fields');
  const fields = (body ?? {}) as Record<string, unknown>;
  const problems: FieldError[] = [];
  const bad: string[] = [];
  invalidText(fields, '', bad);
  for (const field of bad) problems.push({ field, message: NOT_UNICODE });
  const known = knownFields(schema);
  if (known)
    for (const field of Object.keys(fields))
      if (!known.has(field) && !bad.includes(field)) problems.push({ field, message: UNKNOWN_FIELD });
  const result = schema.safeParse(fields);
  if (!result.success)
    for (const problem of fieldsOf(result.error))
      if (!problems.some((p) => p.field === problem.field)) problems.push(problem);
  if (problems.length || !result.success) throw invalidFields(problems);
  return result.data;
}

export function parseQuery<T>(schema: z.ZodType<T>, query: unknown): T {
  const bad: string[] = [];
  invalidText(query ?? {}, '', bad);
  if (bad.length) throw new AppError(400, ErrorCode.invalidQuery, `${bad.join(', ')}: ${NOT_UNICODE}`);
  const result = schema.safeParse(query ?? {});
  if (!result.success)
    throw new AppError(
      400,
      ErrorCode.invalidQuery,
      // Messages of shared pieces (pagination) name their parameter already; the others get it in front.
      fieldsOf(result.error)
        .map((f) => (f.message.startsWith(f.field) ? f.message : `${f.field}: ${f.message}`))
        .join('; '),
    );
  return result.data;
}

/**
 * Fastify applies its body limit to the bodies it reads itself, but multipart streams past it: an announced
 * length over the limit is refused before anything is read. So is a multipart body without the boundary that
 * delimits its parts, which the multipart parser reports as a bare Error (a 500), and a compressed body,
 * which no parser here reads.
 */
export function refuseUnreadableBody(request: FastifyRequest, bodyLimit: number): void {
  const encoding = request.headers['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity')
    throw new AppError(
      415,
      ErrorCode.unsupportedEncoding,
      `Unsupported Content-Encoding ${JSON.stringify(encoding.slice(0, 40))}: send the body uncompressed`,
    );
  if (Number(request.headers['content-length']) > bodyLimit)
    throw new AppError(413, ErrorCode.payloadTooLarge, `The request body is larger than the limit of ${bodyLimit} bytes`);
  const type = request.headers['content-type'] ?? '';
  if (!/^\s*multipart\/form-data\b/i.test(type)) return;
  if (!/;\s*boundary=("[^"]+"|[^\s;"]+)/i.test(type))
    throw new AppError(400, ErrorCode.invalidBody, 'A multipart/form-data body needs a boundary in its Content-Type');
  // The multipart parser reads the raw stream, past Fastify's body limit: only a declared length keeps it bounded.
  if (request.headers['content-length'] === undefined)
    throw new AppError(411, ErrorCode.lengthRequired, 'A multipart/form-data body needs a Content-Length header');
}
