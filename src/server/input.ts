import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { AppError, ErrorCode, invalidFields, type FieldError } from '../shared/errors.js';
import { boundaryOf } from './multipart.js';

/**
 * Every request's input goes through here, whatever route it reaches: bodies are strict (a field the
 * schema does not name is refused, each one named, so that a typo in a script fails loudly) and text
 * must be valid Unicode. Routes opt out of strictness only by declaring a `.loose()` object.
 */

const fieldsOf = (error: z.ZodError, keep: (issue: z.core.$ZodIssue) => boolean = () => true): FieldError[] =>
  error.issues.filter(keep).map((issue) => ({
    field: issue.path.length ? issue.path.map(String).join('.') : 'body',
    message: issue.message,
  }));

interface SchemaDef {
  type: string;
  shape?: Record<string, ZodLike>;
  catchall?: ZodLike;
  in?: ZodLike;
  out?: ZodLike;
  innerType?: ZodLike;
  element?: ZodLike;
  options?: ZodLike[];
}
type ZodLike = { _zod: { def: SchemaDef } };

/** The object schema inside wrappers (pipes, preprocessing, optional, defaults), or undefined when it is none. */
function objectDef(def: SchemaDef): SchemaDef | undefined {
  switch (def.type) {
    case 'object':
      return def;
    case 'pipe':
      return (def.in && objectDef(def.in._zod.def)) ?? (def.out && objectDef(def.out._zod.def));
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
      return def.innerType && objectDef(def.innerType._zod.def);
    default:
      return undefined;
  }
}

/** The array schema inside wrappers, or undefined. */
function arrayElement(def: SchemaDef): SchemaDef | undefined {
  if (def.type === 'array') return def.element?._zod.def;
  if (def.type === 'pipe') return (def.in && arrayElement(def.in._zod.def)) ?? (def.out && arrayElement(def.out._zod.def));
  if (def.innerType) return arrayElement(def.innerType._zod.def);
  return undefined;
}

const isStrict = (def: SchemaDef) => !def.catchall || def.catchall._zod.def.type === 'never';

/** Paths of the fields of `value`, at any depth, that the schema does not name. */
function unknownFields(def: SchemaDef, value: unknown, path: string, found: string[], depth = 0): void {
  if (depth > 16 || !value || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const element = arrayElement(def);
    if (element) value.forEach((item, i) => unknownFields(element, item, `${path}.${i}`, found, depth + 1));
    return;
  }
  const object = objectDef(def);
  if (!object || Buffer.isBuffer(value)) return;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const at = path ? `${path}.${key}` : key;
    // Own keys only: a key named after an Object.prototype member (`constructor`, `toString`) is an unknown field.
    const field = object.shape && Object.hasOwn(object.shape, key) ? object.shape[key] : undefined;
    if (field) unknownFields(field._zod.def, item, at, found, depth + 1);
    else if (isStrict(object)) found.push(at);
  }
}

// In a `u` regular expression a well-formed surrogate pair is one code point: only lone halves match.
const LONE_SURROGATE = /\p{Cs}/u;
// PostgreSQL cannot hold U+0000 in text; refused at the edge, so that both stores answer the same.
const NUL = /\u0000/;

/** What is wrong with a text, if anything. */
const textProblem = (text: string): string | undefined =>
  LONE_SURROGATE.test(text) ? NOT_UNICODE : NUL.test(text) ? HAS_NUL : undefined;

/** Paths of the strings (and keys) in a value that are not valid text, with what is wrong. */
function invalidText(value: unknown, path: string, found: FieldError[], depth = 0): void {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem) found.push({ field: path, message: problem });
  } else if (value && typeof value === 'object' && depth < 32 && !Buffer.isBuffer(value)) {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      const at = path ? `${path}.${key}` : key;
      const problem = textProblem(key);
      if (problem) found.push({ field: at, message: problem });
      else invalidText(item, at, found, depth + 1);
    }
  }
}

const NOT_UNICODE = 'must be valid Unicode text (it holds a lone UTF-16 surrogate)';
const HAS_NUL = 'must not contain the NUL character (U+0000)';
export const UNKNOWN_FIELD = 'is not a field of this request';

export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body)))
    throw new AppError(400, ErrorCode.invalidBody, 'The request body must be an object of fields');
  const fields = (body ?? {}) as Record<string, unknown>;
  const problems: FieldError[] = [];
  const bad: FieldError[] = [];
  invalidText(fields, '', bad);
  problems.push(...bad);
  const unknown: string[] = [];
  unknownFields((schema as unknown as ZodLike)._zod.def, fields, '', unknown);
  // A body may hold 100,000 fields: sets, not a scan of the problems for each.
  const named = new Set(bad.map((b) => b.field));
  for (const field of unknown) {
    if (named.has(field)) continue;
    problems.push({ field, message: UNKNOWN_FIELD });
    named.add(field);
  }
  const result = schema.safeParse(fields);
  if (!result.success)
    // Unknown keys of strict objects are named above, one by one.
    for (const problem of fieldsOf(result.error, (issue) => issue.code !== 'unrecognized_keys')) {
      if (named.has(problem.field)) continue;
      problems.push(problem);
      named.add(problem.field);
    }
  if (!result.success && problems.length === 0) problems.push(...fieldsOf(result.error));
  if (problems.length || !result.success) throw invalidFields(problems);
  return result.data;
}

const IDS_GO_WITH = new Set(['ids', 'page', 'per_page']);

/** Parameters a client named, quoted (control characters escaped), a few at most: a hostile query may hold hundreds. */
const namesOf = (keys: readonly string[]): string =>
  keys.slice(0, 5).map((key) => JSON.stringify(key.slice(0, 40))).join(', ') + (keys.length > 5 ? ` and ${keys.length - 5} more` : '');

/**
 * A query string with an escape that does not decode to UTF-8 (`%`, `%FF`, half a character) is a 400, as in a form
 * body: Node's parser puts U+FFFD in its place, and a filter would look for that instead.
 */
export function refuseMalformedQuery(url: string): void {
  const at = url.indexOf('?');
  if (at < 0 || !url.includes('%', at)) return;
  for (const pair of url.slice(at + 1).split('&'))
    try {
      decodeURIComponent(pair);
    } catch {
      throw new AppError(400, ErrorCode.invalidQuery, `The query has an escape that is not UTF-8 percent-encoded: ${JSON.stringify(pair.slice(0, 100))}`);
    }
}

export function parseQuery<T>(schema: z.ZodType<T>, query: unknown): T {
  const bad: FieldError[] = [];
  invalidText(query ?? {}, '', bad);
  if (bad.length) throw new AppError(400, ErrorCode.invalidQuery, bad.map((b) => `${b.field}: ${b.message}`).join('; '));
  const given = (query ?? {}) as Record<string, unknown>;
  if (given.cursor !== undefined && given.page !== undefined)
    throw new AppError(400, ErrorCode.invalidQuery, 'cursor and page cannot be used together: a cursor already says where the page starts');
  if (given.ids !== undefined && Object.keys(given).some((k) => !IDS_GO_WITH.has(k)))
    throw new AppError(400, ErrorCode.invalidQuery, 'ids cannot be used with other filters or a cursor: the ids name the records already');
  // As a body's unknown field is a 422: a misspelt filter (`usr_id`) would otherwise list everything.
  const def = objectDef((schema as unknown as ZodLike)._zod.def);
  const shape = def?.shape ?? {};
  const unknown = def && isStrict(def) ? Object.keys(given).filter((key) => !Object.hasOwn(shape, key)) : [];
  if (unknown.length) {
    const takes = Object.keys(shape);
    throw new AppError(
      400,
      ErrorCode.invalidQuery,
      `${namesOf(unknown)} ${unknown.length > 1 ? 'are not parameters' : 'is not a parameter'} of this request ` +
        (takes.length ? `(it takes ${takes.join(', ')})` : '(it takes none)'),
    );
  }
  // A parameter given twice (`?user_id=a&user_id=b`) where the request takes one value.
  const repeated = Object.keys(given).filter((key) => Array.isArray(given[key]) && !(shape[key] && arrayElement(shape[key]._zod.def)));
  if (repeated.length)
    throw new AppError(400, ErrorCode.invalidQuery, `${namesOf(repeated)} ${repeated.length > 1 ? 'were' : 'was'} given more than once: give ${repeated.length > 1 ? 'each' : 'it'} once`);
  const result = schema.safeParse(query ?? {});
  if (!result.success)
    throw new AppError(
      400,
      ErrorCode.invalidQuery,
      // Messages of shared pieces (pagination) name their parameter already; the others get it in front. Each once:
      // a piece may check twice (a number, then its range).
      [...new Set(fieldsOf(result.error).map((f) => (f.message.startsWith(f.field) ? f.message : `${f.field}: ${f.message}`)))].join('; '),
    );
  return result.data;
}

/**
 * Refused before any byte of the body is read: an announced length over the limit, a multipart body without
 * the boundary that delimits its parts, and a compressed body (Content-Encoding, or a transfer coding other than
 * chunked), which no parser here reads.
 */
export function refuseUnreadableBody(request: FastifyRequest, bodyLimit: number): void {
  const encoding = request.headers['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity')
    throw new AppError(
      415,
      ErrorCode.unsupportedEncoding,
      `Unsupported Content-Encoding ${JSON.stringify(encoding.slice(0, 40))}: send the body uncompressed`,
    );
  // Node takes off the chunking alone: a `gzip, chunked` body would reach the parsers compressed.
  const coding = request.headers['transfer-encoding']?.toLowerCase().split(',').map((c) => c.trim()).find((c) => c !== 'chunked');
  if (coding !== undefined)
    throw new AppError(
      415,
      ErrorCode.unsupportedEncoding,
      `Unsupported Transfer-Encoding ${JSON.stringify(coding.slice(0, 40))}: send the body uncompressed (chunked is taken)`,
    );
  if (Number(request.headers['content-length']) > bodyLimit)
    throw new AppError(413, ErrorCode.payloadTooLarge, `The request body is larger than the limit of ${bodyLimit} bytes`);
  const type = request.headers['content-type'] ?? '';
  if (/^\s*multipart\/form-data\b/i.test(type) && !boundaryOf(type))
    throw new AppError(400, ErrorCode.invalidBody, 'A multipart/form-data body needs a boundary in its Content-Type');
}

/** Path parameters: checked as text like a query (a lone surrogate or NUL is a 400), then by the route's schema if it has one. */
export function parseParams<T>(schema: z.ZodType<T> | undefined, params: unknown): T {
  if (schema) return parseQuery(schema, params);
  const bad: FieldError[] = [];
  invalidText(params ?? {}, '', bad);
  if (bad.length) throw new AppError(400, ErrorCode.invalidQuery, bad.map((b) => `${b.field}: ${b.message}`).join('; '));
  return params as T;
}
