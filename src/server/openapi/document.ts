import type { z } from 'zod';
import { ErrorCode, type ErrorCodeValue } from '../../shared/errors.js';
import { ErrorSchema } from '../../shared/schemas/errors.js';
import type { RouteSpec } from '../route.js';
import { conflictResponse, ERROR_RESPONSES, HEADERS, OTHER_ERRORS, PARAMETERS, TAGS } from './parts.js';
import { formBody, propertiesOf, SchemaComponents, type JsonSchema } from './schemas.js';

type AnySpec = RouteSpec<z.ZodType, z.ZodType, z.ZodType>;

/** The version of the interface (the spec's label); the program's own version is `x-agora-version`. */
export const API_VERSION = '1.0.0';

const SUCCESS: Record<string, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted: queued, done shortly after', 204: 'Done: no body' };

/** Which parts of `components` the operations refer to, so that only those are written. */
class Used {
  readonly responses = new Set<string>();
  readonly headers = new Set<string>();
  readonly parameters = new Set<string>();

  response(name: string) {
    this.responses.add(name);
    return { $ref: `#/components/responses/${name}` };
  }
  header(name: keyof typeof HEADERS) {
    this.headers.add(name);
    return { $ref: `#/components/headers/${name}` };
  }
  parameter(name: keyof typeof PARAMETERS) {
    this.parameters.add(name);
    return { $ref: `#/components/parameters/${name}` };
  }
}

const firstExample = (schema: JsonSchema): unknown => (schema.examples as unknown[] | undefined)?.[0];

/** The 4xx answers an operation may give, each referring to its component, plus the 409s it names. */
function errorResponses(spec: AnySpec, used: Used, facts: { pathParams: boolean; namesIds: boolean }) {
  const out: Record<string, unknown> = {};
  const add = (status: keyof typeof ERROR_RESPONSES) => (out[status] = used.response(ERROR_RESPONSES[status][0]));
  add(400);
  if (!spec.open) {
    add(401);
    add(403);
  }
  if (facts.pathParams || facts.namesIds) add(404);
  const conflicts: ErrorCodeValue[] = [...(spec.conflicts ?? []), ...(spec.method === 'POST' ? [ErrorCode.idempotencyKeyInUse] : [])];
  if (conflicts.length) out[409] = conflictResponse(conflicts);
  if (spec.body) {
    add(413);
    add(415);
  }
  if (spec.body || spec.method === 'POST') add(422);
  if (!spec.open) add(429);
  out.default = used.response(OTHER_ERRORS[0]);
  return out;
}

function describe(spec: AnySpec, isList: boolean): string {
  if (spec.description) return spec.description;
  const notes = [spec.summary.endsWith('.') ? spec.summary : `${spec.summary}.`];
  if (isList)
    notes.push('Paged with page and per_page; the Link header (rel="next") walks the whole list with a cursor, each step as cheap as the first.');
  if (spec.method === 'POST') notes.push('An Idempotency-Key makes a retry safe.');
  if (spec.open) notes.push('Needs no credentials.');
  return notes.join(' ');
}

function operation(spec: AnySpec, components: SchemaComponents, used: Used): Record<string, unknown> {
  if (!TAGS[spec.tag]) throw new Error(`${spec.method} ${spec.url}: tag ${spec.tag} is not declared in TAGS`);
  const parameters: unknown[] = [];
  const pathNames = (spec.url.match(/:(\w+)/g) ?? []).map((n) => n.slice(1));
  const pathSchemas = spec.params ? propertiesOf(components, components.convert(spec.params, 'input')) : {};
  for (const name of pathNames)
    parameters.push({ name, in: 'path', required: true, description: `The ${name === 'id' ? "record's" : name.replace(/_id$/, "'s")} id`, schema: pathSchemas[name] ?? { type: 'string' } });

  let isList = false;
  let namesIds = false;
  if (spec.query) {
    const query = components.resolve(components.convert(spec.query, 'input'));
    const required = (query.required as string[] | undefined) ?? [];
    for (const [name, raw] of Object.entries((query.properties ?? {}) as Record<string, JsonSchema>)) {
      const { description, ...schema } = raw;
      parameters.push({ name, in: 'query', required: required.includes(name), ...(description ? { description } : {}), schema });
    }
    isList = 'cursor' in (query.properties as object);
    // A single answer for a named user (GET /permissions?user_id=): an unknown one is a 404.
    namesIds = !isList && Object.keys(query.properties as object).some((name) => name.endsWith('_id'));
  }
  parameters.push(used.parameter('RequestId'));
  if (spec.method === 'POST') parameters.push(used.parameter('IdempotencyKey'));
  if (spec.stream) parameters.push(used.parameter('LastEventId'));

  const op: Record<string, unknown> = {
    operationId: spec.operationId,
    summary: spec.summary,
    description: describe(spec, isList),
    tags: [spec.tag],
    parameters,
  };

  if (spec.body) {
    const schema = components.convert(spec.body, 'input');
    const resolved = components.resolve(schema);
    const example = firstExample(resolved);
    const form = formBody(components, schema);
    const formContent = { schema: form.schema, ...(form.encoding ? { encoding: form.encoding } : {}), ...(example ? { example } : {}) };
    namesIds = Object.keys(propertiesOf(components, schema)).some((name) => /_ids?$/.test(name)) || !!resolved.oneOf;
    op.requestBody = {
      // A body whose every field is optional may be left out (set_notifications_seen marks every notification).
      required: ((resolved.required as string[] | undefined) ?? []).length > 0 || !!resolved.oneOf,
      content: {
        'application/json': { schema, ...(example ? { example } : {}) },
        'application/x-www-form-urlencoded': formContent,
        'multipart/form-data': formContent,
      },
    };
  }

  const status = String(spec.status ?? (spec.method === 'POST' ? 201 : 200));
  const headers: Record<string, unknown> = { 'X-Request-Id': used.header('X-Request-Id') };
  if (isList) headers.Link = used.header('Link');
  if (spec.method === 'POST') headers['Idempotent-Replayed'] = used.header('Idempotent-Replayed');
  for (const name of spec.headers ?? []) headers[name] = used.header(name);
  let content: Record<string, unknown> | undefined;
  if (spec.text) {
    content = Object.fromEntries(
      Object.entries(spec.text).map(([type, { description, example }]) => [type, { schema: { type: 'string', description }, example }]),
    );
  } else if (spec.response) {
    const schema = components.convert(spec.response, 'output');
    const resolved = components.resolve(schema);
    if (isList && resolved.type === 'array') headers['X-Total-Count'] = used.header('X-Total-Count');
    const example = firstExample(resolved);
    content = { 'application/json': { schema, ...(example ? { example } : {}) } };
  } else if (status !== '204') {
    content = {
      'application/json': {
        schema: { type: 'object', description: 'A JSON document' },
        example: { openapi: '3.1.0', info: { title: 'agora public API', version: API_VERSION }, paths: {} },
      },
    };
  }
  const success = { description: SUCCESS[status] ?? 'OK', headers, ...(content ? { content } : {}) };
  op.responses = { [status]: success, ...errorResponses(spec, used, { pathParams: pathNames.length > 0, namesIds }) };
  if (spec.open) op.security = [];
  return op;
}

const pick = <T>(all: Record<string, T>, names: Set<string>) =>
  Object.fromEntries(Object.entries(all).filter(([name]) => names.has(name)));

/** The OpenAPI 3.1 document, generated from the same zod schemas the routes validate with. */
export function buildOpenApi(specs: AnySpec[], prefix: string, version: string): Record<string, unknown> {
  const components = new SchemaComponents();
  const used = new Used();
  components.convert(ErrorSchema, 'output');
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of specs) {
    const path = prefix + spec.url.replace(/:(\w+)/g, '{$1}');
    paths[path] = { ...paths[path], [spec.method.toLowerCase()]: operation(spec, components, used) };
  }
  const responses = Object.fromEntries([...Object.values(ERROR_RESPONSES), OTHER_ERRORS].map(([name, response]) => [name, response]));
  const tags = new Set(specs.map((s) => s.tag));
  // The error answers name these.
  used.header('X-Request-Id');
  used.header('Retry-After');
  return {
    openapi: '3.1.0',
    info: {
      title: 'agora public API',
      version: API_VERSION,
      description:
        'A community social network: users, pages, follows, notifications, roles, access requests, invites, gathering events, content and webhooks. ' +
        'Every request but this document carries an Api-Key and an Api-Secret header; errors are {"error": {"code", "message", "fields"?, "request_id"}}.',
      license: { name: 'MIT', identifier: 'MIT' },
      'x-agora-version': version,
    },
    servers: [
      {
        url: '{origin}',
        description: 'An agora server (agora serve; npm start listens on http://127.0.0.1:4010)',
        variables: { origin: { default: 'http://127.0.0.1:4010', description: 'Its scheme, host and port' } },
      },
    ],
    tags: Object.entries(TAGS)
      .filter(([name]) => tags.has(name))
      .map(([name, description]) => ({ name, description })),
    security: [{ ApiKey: [], ApiSecret: [] }],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(components.schemas).sort(([a], [b]) => a.localeCompare(b))),
      responses: pick(responses, used.responses),
      headers: pick(HEADERS, used.headers),
      parameters: pick(PARAMETERS, used.parameters),
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'Api-Key', description: 'The public half of a key pair (agora admin create-key)' },
        ApiSecret: { type: 'apiKey', in: 'header', name: 'Api-Secret', description: 'The secret half, shown once when the pair is made' },
      },
    },
  };
}
