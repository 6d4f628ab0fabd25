import { z } from 'zod';
import { ErrorCode } from '../shared/errors.js';
import { knownFields } from './input.js';
import type { RouteSpec } from './route.js';

type AnySpec = RouteSpec<z.ZodType, z.ZodType, z.ZodType>;

const jsonSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;

const ErrorBodySchema = z.object({
  error: z.object({
    code: z.string().describe(`One of: ${Object.values(ErrorCode).join(', ')}`),
    message: z.string(),
    fields: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
    request_id: z.string().describe('The X-Request-Id of this answer, also named in the server log'),
  }),
});

/** The OpenAPI 3.1 document, generated from the same zod schemas the routes validate with. */
export function buildOpenApi(specs: AnySpec[], prefix: string, version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const errorResponse = { content: { 'application/json': { schema: jsonSchema(ErrorBodySchema) } } };
  for (const spec of specs) {
    const path = prefix + spec.url.replace(/:(\w+)/g, '{$1}');
    const parameters: unknown[] = [];
    for (const name of spec.url.match(/:(\w+)/g) ?? [])
      parameters.push({ name: name.slice(1), in: 'path', required: true, schema: { type: 'string' } });
    if (spec.query) {
      const props = (jsonSchema(spec.query).properties ?? {}) as Record<string, unknown>;
      for (const [name, schema] of Object.entries(props)) parameters.push({ name, in: 'query', required: false, schema });
    }
    const status = String(spec.status ?? (spec.method === 'POST' ? 201 : 200));
    const operation: Record<string, unknown> = {
      summary: spec.summary,
      tags: [spec.tag],
      parameters,
      responses: {
        [status]:
          status === '204'
            ? { description: 'Done' }
            : {
                description: 'Success',
                content: spec.stream
                  ? { 'text/event-stream': { schema: { type: 'string' } } }
                  : spec.response
                    ? { 'application/json': { schema: jsonSchema(spec.response) } }
                    : undefined,
              },
        default: { description: 'Error', ...errorResponse },
      },
    };
    if (spec.open) operation.security = [];
    if (spec.body) {
      const schema = jsonSchema(spec.body);
      // The server refuses fields a body schema does not name (src/server/input.ts): the document says so.
      if (knownFields(spec.body) && schema.type === 'object') schema.additionalProperties = false;
      operation.requestBody = {
        required: true,
        content: {
          'application/json': { schema },
          'application/x-www-form-urlencoded': { schema },
          'multipart/form-data': { schema },
        },
      };
    }
    paths[path] = { ...paths[path], [spec.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'agora public API', version },
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'Api-Key' },
        ApiSecret: { type: 'apiKey', in: 'header', name: 'Api-Secret' },
      },
    },
    security: [{ ApiKey: [], ApiSecret: [] }],
    paths,
  };
}
