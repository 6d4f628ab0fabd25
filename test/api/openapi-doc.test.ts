import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ErrorCode } from '../../src/shared/errors.js';
import { ErrorSchema } from '../../src/shared/schemas/errors.js';
import { EXPORT_COLUMNS, ExportedUserSchema } from '../../src/shared/schemas/users.js';
import { VERSION } from '../../src/shared/version.js';
import { WEBHOOK_EVENTS } from '../../src/shared/schemas/webhooks.js';
import { useApp } from '../helpers/app.js';
import { inlineRefs } from '../helpers/openapi.js';
import { PREFIX } from '../helpers/server.js';

/**
 * The OpenAPI document as integrators and generated clients need it (issue 32): named operations, their errors
 * and examples, named schemas, headers, and no field a client would have to type `unknown`.
 */
const api = useApp();
let doc: any;
let operations: { where: string; method: string; path: string; op: any }[];

beforeAll(async () => {
  const res = await api.call('GET', '/openapi.json', { as: null });
  expect(res.status).toBe(200);
  doc = res.body;
  operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, method, path, op })),
  );
});

const mediaExample = (content: Record<string, any> | undefined) =>
  Object.values(content ?? {}).some((media) => media.example !== undefined || media.examples !== undefined);

const resolve = (node: any) => (node?.$ref ? node.$ref.slice(2).split('/').reduce((n: any, k: string) => n[k], doc) : node);

describe('the OpenAPI document', () => {
  it('names every operation once, in snake_case, with a 4xx answer and an example', () => {
    expect(operations.length).toBeGreaterThan(50);
    const ids = operations.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { where, op } of operations) {
      expect(op.operationId, where).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      const errors = Object.keys(op.responses).filter((status) => /^4\d\d$/.test(status));
      expect(errors.length, where).toBeGreaterThan(0);
      for (const status of errors) expect(mediaExample(resolve(op.responses[status]).content), `${where} ${status}`).toBe(true);
      const success = Object.entries(op.responses as Record<string, any>).find(([status]) => /^2/.test(status))!;
      const examples = [op.requestBody && mediaExample(op.requestBody.content), success[1].content && mediaExample(success[1].content)];
      expect(examples.filter((e) => e !== undefined).every(Boolean), where).toBe(true);
    }
    expect(ids).toEqual(expect.arrayContaining(['set_notifications_seen', 'create_page', 'list_invites', 'accept_page_access_request']));
  });

  it('has at least 20 named schemas, each referred to, and errors whose code is an enum of every code', () => {
    const names = Object.keys(doc.components.schemas);
    expect(names.length).toBeGreaterThanOrEqual(20);
    const text = JSON.stringify({ ...doc, components: { ...doc.components, schemas: {} } }) + JSON.stringify(doc.components.schemas);
    for (const name of names) expect(text, name).toContain(`"#/components/schemas/${name}"`);
    expect(doc.components.schemas.Error.properties.error.properties.code.enum.sort()).toEqual(Object.values(ErrorCode).sort());
    const users = doc.paths[`${PREFIX}/users`];
    expect(users.post.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/User' });
    expect(users.get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/UserList' });
    expect(resolve(users.post.responses['409']).content['application/json'].examples.email_taken.value.error.message).toBe(
      'A user already exist with that email',
    );
  });

  it('documents Link, X-Total-Count, X-Request-Id and Retry-After answers, Idempotency-Key and Last-Event-ID requests', () => {
    for (const name of ['Link', 'X-Total-Count', 'X-Request-Id', 'Retry-After']) expect(doc.components.headers[name], name).toBeDefined();
    const headersOf = (path: string, method: string, status: string) => Object.keys(doc.paths[PREFIX + path][method].responses[status].headers);
    expect(headersOf('/pages', 'get', '200')).toEqual(expect.arrayContaining(['Link', 'X-Request-Id']));
    expect(headersOf('/users/{user_id}/notifications', 'get', '200')).toEqual(expect.arrayContaining(['Link', 'X-Total-Count']));
    expect(Object.keys(doc.components.responses.TooManyRequests.headers)).toContain('Retry-After');
    const parameterNames = (op: any) => op.parameters.map((p: any) => resolve(p).name);
    for (const { where, method, op } of operations) {
      expect(op.responses.default, where).toBeDefined();
      if (method === 'post') expect(parameterNames(op), where).toContain('Idempotency-Key');
      if (!op.security) expect(Object.keys(op.responses), where).toEqual(expect.arrayContaining(['401', '403', '429']));
    }
    const stream = doc.paths[`${PREFIX}/users/{user_id}/notifications/stream`].get;
    expect(parameterNames(stream)).toContain('Last-Event-ID');
    expect(stream.responses['200'].content['text/event-stream'].example).toMatch(/^event: notification\nid: \w+\ndata: \{/m);
    const exported = doc.paths[`${PREFIX}/users/export`].get.responses['200'].content;
    expect(Object.keys(exported).sort()).toEqual(['application/x-ndjson', 'text/csv']);
    expect(exported['text/csv'].example.split('\r\n')[0]).toBe(EXPORT_COLUMNS.join(','));
  });

  it('is version 1.0.0 of the interface, the package version beside it, with servers and declared tags', () => {
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.info['x-agora-version']).toBe(VERSION);
    expect(doc.servers.length).toBeGreaterThan(0);
    const declared = doc.tags.map((t: any) => t.name);
    for (const { where, op } of operations) expect(declared, where).toContain(op.tags[0]);
  });

  it('types every field: no schema a client would have to read as unknown', () => {
    const untyped: string[] = [];
    const keys = ['type', '$ref', 'oneOf', 'anyOf', 'allOf', 'const', 'enum'];
    const walk = (schema: any, where: string) => {
      if (!schema || typeof schema !== 'object') return;
      // A constraint alone (`{required: [...]}` in a oneOf) is not a field.
      const constraintOnly = Object.keys(schema).every((k) => k === 'required');
      if (!constraintOnly && !keys.some((k) => k in schema)) untyped.push(where);
      for (const [name, s] of Object.entries(schema.properties ?? {})) walk(s, `${where}.${name}`);
      for (const k of ['oneOf', 'anyOf', 'allOf'] as const) (schema[k] ?? []).forEach((s: any, i: number) => walk(s, `${where}.${k}[${i}]`));
      if (schema.items) walk(schema.items, `${where}[]`);
      if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, `${where}{}`);
    };
    for (const [name, schema] of Object.entries(doc.components.schemas)) walk(schema, name);
    for (const { where, op } of operations) for (const p of op.parameters.map(resolve)) walk(p.schema, `${where} ${p.name}`);
    expect(untyped).toEqual([]);

    const schemas = doc.components.schemas;
    expect(schemas.CreateEventInput.properties.start_date).toMatchObject({ type: 'string', format: 'date-time' });
    expect(schemas.CreateEventInput.properties.end_date).toMatchObject({ type: 'string', format: 'date-time' });
    expect(schemas.CreatePageInput.properties.user_id.type).toEqual(['string', 'number']);
    expect(schemas.CreateLikeInput.oneOf).toEqual([{ $ref: '#/components/schemas/LikeStatusInput' }, { $ref: '#/components/schemas/LikeCommentInput' }]);
    expect(schemas.TicketInput.properties.price.type).toBe('string');
    expect(schemas.Delivery.properties.payload).toEqual({ $ref: '#/components/schemas/WebhookPayload' });
    // Every resource a webhook may be sent about, with its record: a client generated from the document takes them all.
    const resources = [...new Set(WEBHOOK_EVENTS.map((event) => event.slice(0, event.indexOf('.'))))];
    expect([...schemas.WebhookPayload.properties.resource.enum].sort()).toEqual(resources.sort());
    expect(schemas.WebhookPayload.properties.data.anyOf.map((s: { $ref: string }) => s.$ref.split('/').pop()).sort()).toEqual(['Invite', 'PageAccessRequest', 'Report']);
    const query = (path: string) => Object.fromEntries(doc.paths[PREFIX + path].get.parameters.map(resolve).map((p: any) => [p.name, p.schema]));
    expect(query('/pages').cursor.type).toBe('string');
    expect(query('/users').ids.type).toBe('string');
    for (const bound of [query('/audit_log').since, query('/audit_log').until])
      expect(bound.anyOf).toEqual([{ type: 'string', format: 'date-time' }, { type: 'string', format: 'date' }]);
  });

  it('holds examples that the schemas they illustrate accept', () => {
    const registered = (z.globalRegistry as unknown as { _idmap: Map<string, z.ZodType> })._idmap;
    let checked = 0;
    for (const [id, schema] of registered)
      for (const example of (z.globalRegistry.get(schema)?.examples as unknown[] | undefined) ?? []) {
        const result = schema.safeParse(example);
        expect(result.success, `${id}: ${JSON.stringify(result.error?.issues)}`).toBe(true);
        checked += 1;
      }
    expect(checked).toBeGreaterThan(30);
  });

  it('calls optional only the request fields the server takes without (webhooks events was documented optional)', () => {
    const registered = (z.globalRegistry as unknown as { _idmap: Map<string, z.ZodType> })._idmap;
    const wrong: string[] = [];
    for (const [id, schema] of registered) {
      const component = doc.components.schemas[id];
      const example = (z.globalRegistry.get(schema)?.examples as Record<string, unknown>[] | undefined)?.[0];
      if (!id.endsWith('Input') || component?.type !== 'object' || !example) continue;
      for (const name of Object.keys(component.properties)) {
        const { [name]: _left, ...without } = example;
        if (!(component.required ?? []).includes(name) && !schema.safeParse(without).success) wrong.push(`${id}.${name}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('what the document says, the server does', () => {
  it('takes set_notifications_seen without a body, and a form naming user_target_ids[]', async () => {
    const marking = doc.paths[`${PREFIX}/users/{user_id}/set_notifications_seen`].put;
    expect(marking.requestBody.required).toBe(false);
    const ada = await api.member();
    expect((await api.call('PUT', `/users/${ada.user.id}/set_notifications_seen`)).status).toBe(200);

    const form = inlineRefs(doc).paths[`${PREFIX}/invites`].post.requestBody.content['application/x-www-form-urlencoded'].schema;
    expect(Object.keys(form.properties)).toEqual(expect.arrayContaining(['user_target_ids', 'user_target_ids[]']));
    const grace = await api.member();
    const config = (await api.call('POST', '/page_configurations', { body: { name: `Forms ${Date.now()}` } })).body.id;
    const page = (await api.call('POST', '/pages', { body: { name: 'Forms', privacy: 'public', page_configuration_id: config, user_id: ada.user.id } })).body.id;
    const res = await api.app.inject({
      method: 'POST',
      url: `${PREFIX}/invites`,
      headers: { 'api-key': api.admin.key, 'api-secret': api.admin.secret, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ target_type: 'Page', target_id: page, user_id: ada.user.id, 'user_target_ids[]': grace.user.id }).toString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.parse(res.body).success.map((i: { user_target_id: string }) => i.user_target_id)).toEqual([grace.user.id]);
  });

  it('exports the lines and columns the document names, and answers errors in the Error schema', async () => {
    await api.member();
    const ndjson = await api.app.inject({ method: 'GET', url: `${PREFIX}/users/export`, headers: { 'api-key': api.admin.key, 'api-secret': api.admin.secret } });
    const lines = ndjson.body.trim().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) ExportedUserSchema.strict().parse(JSON.parse(line));
    const csv = await api.app.inject({ method: 'GET', url: `${PREFIX}/users/export?format=csv`, headers: { 'api-key': api.admin.key, 'api-secret': api.admin.secret } });
    expect(csv.body.split('\r\n')[0]).toBe(EXPORT_COLUMNS.join(','));
    const missing = await api.call('GET', '/pages/0123456789abcdef0123456789abcdef');
    expect(missing.status).toBe(404);
    ErrorSchema.strict().parse(missing.body);
  });
});
