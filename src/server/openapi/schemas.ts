import { z } from 'zod';
import { documentedAs } from '../../shared/schemas/common.js';

export type JsonSchema = Record<string, unknown>;
export type Io = 'input' | 'output';

const COMPONENT = '#/components/schemas/';

/** The zod definition fields read here (zod's own `def`, as src/server/input.ts reads it). */
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: { _zod: { def: Def } };
  defaultValue?: unknown;
}
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** Objects refuse the fields they do not name, at any depth, unless they declare a catchall (src/server/input.ts). */
const refusesUnknownFields = (def: Def) => def.type === 'object' && (!def.catchall || def.catchall._zod.def.type === 'never');

/**
 * A request field is required when the server refuses an object without it. zod's own reckoning marks a field
 * optional when its schema ends in a transform (webhooks' `events`, refused when missing, was documented as
 * optional), so the field's schema is asked instead: does it refuse `undefined`?
 */
function requireWhatIsRequired(shape: Record<string, z.ZodType>, json: JsonSchema): void {
  const properties = json.properties as Record<string, unknown> | undefined;
  if (!properties) return;
  const required = Object.keys(shape).filter((name) => name in properties && !shape[name]!.safeParse(undefined).success);
  if (required.length) json.required = required;
  else delete json.required;
}

/** `#/$defs/X` (zod's) → `#/components/schemas/X`, throughout a JSON value. */
function rewriteRefs<T>(value: T): T {
  if (Array.isArray(value)) return value.map(rewriteRefs) as T;
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    out[key] = key === '$ref' && typeof item === 'string' ? item.replace(/^#\/\$defs\//, COMPONENT) : rewriteRefs(item);
  return out as T;
}

/**
 * The JSON Schemas of the document, made from the zod schemas the routes validate with: requests as the
 * server reads them (`io: 'input'`), answers as it writes them (`io: 'output'`). A schema with an `id` in its
 * `.meta()` becomes a named component, referenced by `$ref` wherever it is used.
 */
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly made = new Map<string, string>();

  /** The JSON Schema of a zod schema, its named parts added to the components. */
  convert(schema: z.ZodType, io: Io): JsonSchema {
    const json = z.toJSONSchema(schema, {
      io,
      target: 'draft-2020-12',
      // A transform in an answer, or any type JSON Schema cannot say, fails the document's build (and its tests).
      unrepresentable: 'throw',
      override: ({ zodSchema, jsonSchema }) => this.override(zodSchema as unknown as z.ZodType, jsonSchema as JsonSchema, io),
    }) as JsonSchema;
    const { $defs = {}, $schema: _dialect, ...root } = json as JsonSchema & { $defs?: Record<string, JsonSchema> };
    for (const [id, def] of Object.entries($defs)) this.add(id, rewriteRefs(def), io);
    return rewriteRefs(root);
  }

  /** The component a `$ref` names, or the schema itself. */
  resolve(schema: JsonSchema): JsonSchema {
    const ref = schema.$ref;
    return typeof ref === 'string' && ref.startsWith(COMPONENT) ? (this.schemas[ref.slice(COMPONENT.length)] ?? schema) : schema;
  }

  ref(id: string): JsonSchema {
    if (!this.schemas[id]) throw new Error(`no schema component ${id}`);
    return { $ref: COMPONENT + id };
  }

  /** Adds a named schema made otherwise (a form variant). */
  addNamed(id: string, schema: JsonSchema): JsonSchema {
    this.add(id, schema, 'input');
    return this.ref(id);
  }

  private add(id: string, schema: JsonSchema, io: Io): void {
    const text = JSON.stringify(schema);
    const before = this.made.get(id);
    // One name, one schema: a schema read both as a request and as an answer would need two names.
    if (before !== undefined && before !== text) throw new Error(`schema ${id} differs between uses (now as ${io})`);
    this.made.set(id, text);
    this.schemas[id] = schema;
  }

  private override(zodSchema: z.ZodType, json: JsonSchema, io: Io): void {
    const def = defOf(zodSchema);
    // zod drops the examples and defaults of a schema that transforms what it reads, as being of its output; ours
    // are of what a client sends (checked so by test/api/openapi-doc.test.ts).
    const examples = json.examples ?? (io === 'input' ? z.globalRegistry.get(zodSchema)?.examples : undefined);
    const documented = documentedAs.get(zodSchema);
    if (documented) {
      const { description } = json;
      for (const key of Object.keys(json)) delete json[key];
      Object.assign(json, this.convert(documented, io), description ? { description } : {});
    }
    if (examples) json.examples = examples;
    if (io !== 'input' || documented) return;
    if (refusesUnknownFields(def)) json.additionalProperties = false;
    if (def.type === 'object' && def.shape) requireWhatIsRequired(def.shape, json);
    if (def.type === 'default' && json.default === undefined) json.default = def.defaultValue;
  }
}

/** The properties of an object schema (a component resolved), or none. */
export const propertiesOf = (components: SchemaComponents, schema: JsonSchema): Record<string, JsonSchema> =>
  (components.resolve(schema).properties as Record<string, JsonSchema> | undefined) ?? {};

const isArrayOf = (schema: JsonSchema, item: (s: JsonSchema) => boolean) =>
  schema.type === 'array' && !!schema.items && item(schema.items as JsonSchema);
const isScalar = (schema: JsonSchema) => schema.type !== 'object' && schema.type !== 'array' && !schema.$ref;

/**
 * A request body as a form (urlencoded or multipart) sends it: a list of values as repeated `name` or `name[]`
 * fields (src/server/app.ts), an object or a list of objects as one field holding JSON. Answers the schema
 * (a named variant when a field may be spelled `name[]`) and the encoding of its fields.
 */
export function formBody(components: SchemaComponents, body: JsonSchema): { schema: JsonSchema; encoding?: Record<string, unknown> } {
  const resolved = components.resolve(body);
  const properties = resolved.properties as Record<string, JsonSchema> | undefined;
  if (!properties) return { schema: body };
  const encoding: Record<string, unknown> = {};
  const lists: string[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    const field = components.resolve(raw);
    if (isArrayOf(field, isScalar)) lists.push(name);
    else if (field.type === 'object' || field.type === 'array' || field.anyOf) encoding[name] = { contentType: 'application/json' };
  }
  const encodingOrNone = Object.keys(encoding).length ? { encoding } : {};
  const id = typeof body.$ref === 'string' ? body.$ref.slice(COMPONENT.length) : undefined;
  if (!lists.length || !id) return { schema: body, ...encodingOrNone };
  const required = (resolved.required as string[] | undefined) ?? [];
  const variant: JsonSchema = {
    ...resolved,
    description: `${resolved.description ? `${resolved.description}. ` : ''}As a form: a list as repeated fields, named ${lists.map((l) => `${l} or ${l}[]`).join(', ')}`,
    properties: Object.fromEntries(Object.entries(properties).flatMap(([name, s]) => (lists.includes(name) ? [[name, s], [`${name}[]`, s]] : [[name, s]]))),
    required: required.filter((name) => !lists.includes(name)),
  };
  const listsRequired = lists.filter((name) => required.includes(name));
  if (listsRequired.length)
    variant.allOf = listsRequired.map((name) => ({ oneOf: [{ required: [name] }, { required: [`${name}[]`] }] }));
  delete variant.examples;
  const example = (resolved.examples as unknown[] | undefined)?.[0];
  if (example) variant.examples = [example];
  return { schema: components.addNamed(id.replace(/Input$/, 'Form'), variant), ...encodingOrNone };
}
