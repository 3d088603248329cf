import http from 'node:http';
import { createHash } from 'node:crypto';
import type { Db } from '../../server/db/database.js';
import { sql } from 'kysely';
import { isSqlite } from '../../server/catalogue/catalogue.repository.js';
import { seededRandom } from '../../common/random.js';

/**
 * Bad-input generator for the fuzz suite (tests/api/fuzz.test.ts): turns every operation of the OpenAPI document
 * into a bounded, deterministic list of hostile requests, and a raw HTTP sender that can put anything in the path
 * (`../`, `%00`, broken percent encodings) without fetch normalising it away.
 */

// ----------------------------------------------------------------------------------------------------------------
// Shuffling, with the one seeded generator (common/random.ts)

function shuffle<T>(items: T[], rnd: () => number): T[] {
  const a = items.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

// ----------------------------------------------------------------------------------------------------------------
// Hostile values

const HUGE_BODY_STRING = 'A'.repeat(100_000);
/** URLs are capped well below Node's 16 KB header limit so the app, not the HTTP parser, answers. */
const HUGE_URL_STRING = 'A'.repeat(8_000);
const UNICODE = 'مرحبا \u202Egnp.exe\u202C \u200B\u200C\u200D\uFEFF 😀👩‍👩‍👧‍👦 Z̵̡̢͎a̷l̶g̸o̵ 𝕳𝖊𝖑𝖑𝖔 \u0301';
const LONE_SURROGATE = 'x\uD800y';
const SQLI = ["' OR '1'='1", "1; DROP TABLE users; --", '" OR 1=1 --', "') UNION SELECT password_hash FROM users --", "%' AND 1=0 UNION SELECT 1,2,3 --"];
const XSS = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', 'javascript:alert(1)', '{{constructor.constructor("alert(1)")()}}'];
const NAN_LIKE = ['NaN', 'Infinity', '-Infinity', '1e400', '0x1F', '-0', 'null', 'undefined', 'true', '1_000', ' 12 ', '١٢٣'];
const NUMBERS = [-1, -2147483649, 2147483648, 9007199254740993, 1e308, -1e308, 1.5, 0, -0.0001];

function deepObject(depth: number): unknown {
  let v: unknown = { leaf: 'x' };
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}
function deepArray(depth: number): unknown {
  let v: unknown = ['x'];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

export interface BadValue {
  label: string;
  value: unknown;
}

/** JSON values for body fields. */
export const BODY_VALUES: BadValue[] = [
  { label: 'huge-string-100kb', value: HUGE_BODY_STRING },
  { label: 'empty-string', value: '' },
  { label: 'whitespace', value: ' \t\n ' },
  { label: 'unicode-rtl-zwj-emoji', value: UNICODE },
  { label: 'lone-surrogate', value: LONE_SURROGATE },
  { label: 'nul-char', value: 'a\u0000b' },
  ...SQLI.map((value, i) => ({ label: `sqli-${i}`, value })),
  ...XSS.map((value, i) => ({ label: `xss-${i}`, value })),
  ...NAN_LIKE.map((value) => ({ label: `nan-like:${value}`, value })),
  ...NUMBERS.map((value) => ({ label: `number:${value}`, value })),
  { label: 'bool', value: true },
  { label: 'null', value: null },
  { label: 'empty-array', value: [] },
  { label: 'mixed-array', value: [1, 'a', { b: 2 }, null] },
  { label: 'huge-array', value: Array.from({ length: 5000 }, (_, i) => `t${i}`) },
  { label: 'object', value: { $gt: '' } },
  { label: 'deep-object', value: deepObject(500) },
  { label: 'deep-array', value: deepArray(500) },
  { label: 'proto-pollution', value: JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}') },
  { label: 'path-traversal', value: '../../../../etc/passwd' },
];

/** Strings for query values (arrays become repeated keys). */
export const QUERY_VALUES: BadValue[] = [
  { label: 'huge-string-8kb', value: HUGE_URL_STRING },
  { label: 'empty', value: '' },
  { label: 'unicode-rtl-zwj-emoji', value: UNICODE },
  { label: 'nul-char', value: 'a\u0000b' },
  ...SQLI.map((value, i) => ({ label: `sqli-${i}`, value })),
  ...XSS.map((value, i) => ({ label: `xss-${i}`, value })),
  ...NAN_LIKE.map((value) => ({ label: `nan-like:${value}`, value })),
  ...NUMBERS.map((value) => ({ label: `number:${value}`, value: String(value) })),
  { label: 'repeated-key', value: ['1', 'two', '3'] },
  { label: 'path-traversal', value: '../../etc/passwd' },
  { label: 'json-object', value: '{"$gt":""}' },
  { label: 'bad-cursor', value: 'eyJ2IjpudWxsfQ' },
  { label: 'base64-garbage', value: Buffer.from('{"v":[1,2],"id":{"x":1}}').toString('base64url') },
];

const cursor = (v: unknown, id: unknown) => Buffer.from(JSON.stringify([v, id])).toString('base64url');
/** Well-formed cursors (the [sort value, id] pair of server/http/pagination.ts) carrying values of the wrong kind. */
export const CURSOR_VALUES: BadValue[] = [
  { label: 'cursor text-for-number', value: cursor('abc', 'x') },
  { label: 'cursor huge-number', value: cursor(1e308, 'x') },
  { label: 'cursor unsafe-int', value: cursor(9007199254740993, 'x') },
  { label: 'cursor fraction', value: cursor(-1.5, 'x') },
  { label: 'cursor null', value: cursor(null, 'x') },
  { label: 'cursor nul-in-id', value: cursor('2024-01-01T00:00:00.000Z', 'a\u0000b') },
  { label: 'cursor nul-in-value', value: cursor('a\u0000b', 'id') },
  { label: 'cursor sqli', value: cursor("' OR 1=1 --", "') OR ('1'='1") },
  { label: 'cursor number-for-text', value: cursor(12345, 'x') },
  { label: 'cursor date-like', value: cursor('9999-99-99T99:99:99Z', 'x') },
  { label: 'cursor unicode', value: cursor('😀\u202E', '\u200B') },
];

/** Raw (already URL-encoded where needed) path segment values. */
export const PATH_VALUES: BadValue[] = [
  { label: 'dotdot', value: '..' },
  { label: 'traversal-raw', value: '../../../etc/passwd' },
  { label: 'traversal-encoded', value: '..%2F..%2F..%2Fetc%2Fpasswd' },
  { label: 'traversal-double-encoded', value: '..%252F..%252Fetc%252Fpasswd' },
  { label: 'dot-encoded', value: '%2e%2e' },
  { label: 'nul', value: '%00' },
  { label: 'nul-inside', value: 'abc%00def' },
  { label: 'lone-percent', value: '%' },
  { label: 'broken-utf8', value: '%E0%A4%A' },
  { label: 'overlong-utf8', value: '%C0%AE%C0%AE' },
  { label: 'long-id-5000', value: 'x'.repeat(5000) },
  { label: 'unicode', value: encodeURIComponent(UNICODE) },
  { label: 'sqli', value: encodeURIComponent(SQLI[0]!) },
  { label: 'xss', value: encodeURIComponent(XSS[1]!) },
  { label: 'negative', value: '-1' },
  { label: 'huge-number', value: '99999999999999999999999999' },
  { label: 'nan', value: 'NaN' },
  { label: 'proto', value: '__proto__' },
  { label: 'constructor', value: 'constructor' },
  { label: 'spaces', value: '%20%20' },
];

// ----------------------------------------------------------------------------------------------------------------
// OpenAPI helpers

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  items?: JsonSchema;
  nullable?: boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  format?: string;
};

export interface OpenApiOperation {
  parameters?: Array<{ in: 'path' | 'query' | 'header' | 'cookie'; name: string; required?: boolean; schema?: JsonSchema }>;
  requestBody?: { content: Record<string, { schema?: JsonSchema }> };
  consumes?: string[];
  description?: string;
  responses?: Record<string, unknown>;
}

export interface OpenApiDoc {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

function typeOf(s: JsonSchema | undefined): string | undefined {
  if (!s) return undefined;
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) return s.type.find((t) => t !== 'null');
  const alt = s.anyOf ?? s.oneOf;
  if (alt) {
    const types = new Set(alt.map(typeOf).filter(Boolean));
    return types.size === 1 ? [...types][0] : undefined;
  }
  if (s.enum?.length) return typeof s.enum[0];
  return undefined;
}

/** A plausible valid value (used to fill required fields around the one being broken). */
export function sampleValid(s: JsonSchema | undefined): unknown {
  if (!s) return 'fuzz';
  if (s.default !== undefined) return s.default;
  if (s.enum?.length) return s.enum[0];
  const alt = s.anyOf ?? s.oneOf;
  if (alt?.length) return sampleValid(alt.find((a) => typeOf(a) !== 'null') ?? alt[0]);
  switch (typeOf(s)) {
    case 'string':
      return s.format === 'email' ? 'fuzz@example.test' : s.format === 'date-time' ? new Date(0).toISOString() : 'fuzz'.padEnd(s.minLength ?? 0, 'z');
    case 'integer':
    case 'number':
      return Math.max(s.minimum ?? 1, 1);
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const k of s.required ?? []) o[k] = sampleValid(s.properties?.[k]);
      return o;
    }
    default:
      return 'fuzz';
  }
}

/**
 * A value no schema of type `s` accepts, coercion or not: an object for scalars and arrays (nothing coerces a
 * JSON object into a string, number, boolean or array here), a string for objects. Undefined when `s` accepts anything.
 */
export function breakerFor(s: JsonSchema | undefined): unknown {
  const t = typeOf(s);
  if (!t) return undefined;
  return t === 'object' ? 'not-an-object' : { $fuzz: 'wrong-type' };
}

/** True when `v`'s JSON type can never satisfy `s` (so a request carrying it is certainly invalid). */
export function certainlyWrongType(s: JsonSchema | undefined, v: unknown): boolean {
  const t = typeOf(s);
  if (!t) return false;
  if (v === null) return !s?.nullable && !(Array.isArray(s?.type) && s!.type.includes('null'));
  if (Array.isArray(v)) return t !== 'array';
  if (typeof v === 'object') return t !== 'object';
  return false;
}

// ----------------------------------------------------------------------------------------------------------------
// Cases

export type Who = 'guest' | 'admin' | 'performer';

export interface FuzzCase {
  /** "METHOD /template" */
  op: string;
  kind: string;
  method: string;
  /** Raw path after the API base, query included. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer | string;
  /** A mutating request: it must be certainly invalid (a 2xx is a generator bug and a write). */
  mutating: boolean;
  /** Node's HTTP parser may answer without the app (414/431, no JSON). */
  rawParserMayAnswer?: boolean;
}

export interface GenerateOptions {
  seed: number;
  perRoute: number;
  /** A real value for a path parameter of a read-only route (so query fuzz reaches the handler's lookups). */
  realPathValue(template: string, name: string): string;
}

const MUTATING = new Set(['post', 'put', 'patch', 'delete']);
/** A well-formed id that exists nowhere: mutating routes always point at it unless the path itself is fuzzed. */
export const MISSING_ID = 'fuzzmissingid000000000000';
const BOUNDARY = '----fuzzboundary7MA4YWxkTrZu0gW';

function encodeQuery(params: Array<[string, unknown]>): string {
  const parts: string[] = [];
  for (const [k, v] of params) {
    for (const one of Array.isArray(v) ? v : [v]) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(one))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

function multipart(parts: Array<{ name: string; filename?: string; type?: string; data: string | Buffer }>, boundary = BOUNDARY): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== undefined) head += `; filename="${p.filename}"`;
    head += '\r\n';
    if (p.type) head += `Content-Type: ${p.type}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** Field names the schemaless (multipart-or-JSON) studio routes read; an object in `status` is never valid. */
const FORM_FIELDS = ['name', 'title', 'description', 'content', 'excerpt', 'price', 'stock', 'type', 'tags', 'categoryIds', 'publishedAt', 'access', 'isSale'];

/**
 * Every hostile request for one operation: at most `perRoute` picked round-robin across categories (path params,
 * each query param, unknown params, each body field, missing fields, body shapes, raw bodies, forms), plus, on
 * lists with a cursor, every wrong-kind cursor with every sort (at most 11 x the number of sorts).
 */
export function casesFor(doc: OpenApiDoc, template: string, method: string, opts: GenerateOptions): FuzzCase[] {
  const op = doc.paths[template]![method]!;
  const rnd = seededRandom(opts.seed ^ hash32(`${method} ${template}`));
  const mutating = MUTATING.has(method);
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const jsonSchema = op.requestBody?.content['application/json']?.schema;
  const hasSchemaBody = !!op.requestBody;
  const consumesMultipart = !!op.requestBody?.content['multipart/form-data'] || /multipart|upload|image/i.test(`${template} ${op.description ?? ''}`);
  const opName = `${method.toUpperCase()} ${template}`;

  const basePath = (override?: { name: string; raw: string }) =>
    template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (override?.name === name) return override.raw;
      return mutating ? MISSING_ID : encodeURIComponent(opts.realPathValue(template, name));
    });
  const requiredQuery: Array<[string, unknown]> = queryParams.filter((p) => p.required).map((p) => [p.name, sampleValid(p.schema)]);

  /** A body that fails validation whatever else it carries (for mutating routes). */
  const breakBody = (body: Record<string, unknown>, except?: string): Record<string, unknown> | undefined => {
    if (!jsonSchema) return body;
    const required = (jsonSchema.required ?? []).filter((k) => k !== except);
    if (required.length) {
      const out = { ...body };
      delete out[required[Math.floor(rnd() * required.length)]!];
      return out;
    }
    const keys = Object.keys(jsonSchema.properties ?? {}).filter((k) => k !== except && breakerFor(jsonSchema.properties![k]) !== undefined);
    if (!keys.length) return undefined;
    const k = keys[Math.floor(rnd() * keys.length)]!;
    return { ...body, [k]: breakerFor(jsonSchema.properties![k]) };
  };
  const baseBody = (): Record<string, unknown> => {
    const v = sampleValid(jsonSchema);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  };
  const formBreaker = () => ({ status: { $fuzz: 'wrong-type' } });

  const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  /** The body every non-body case of a mutating route carries: certainly invalid. */
  const defaultBody = (): { headers: Record<string, string>; body?: string } => {
    if (!mutating) return { headers: {} };
    if (jsonSchema) {
      const b = breakBody(baseBody());
      return b ? json(b) : json(['not', 'an', 'object']);
    }
    if (consumesMultipart) return json(formBreaker());
    return { headers: {} };
  };

  const categories: Record<string, FuzzCase[]> = {};
  const add = (category: string, c: Omit<FuzzCase, 'op' | 'method' | 'mutating'>) => {
    (categories[category] ??= []).push({ op: opName, method: method.toUpperCase(), mutating, ...c });
  };

  // Path parameters.
  for (const p of pathParams) {
    for (const v of PATH_VALUES) {
      const d = defaultBody();
      add(`path:${p.name}`, { kind: `path ${p.name}=${v.label}`, path: basePath({ name: p.name, raw: String(v.value) }) + encodeQuery(requiredQuery), ...d });
    }
  }

  /** Well-formed cursors of the wrong kind, with every sort: all of them, on top of the per-route budget. */
  const cursorCases: FuzzCase[] = [];
  // Query parameters: each known one broken, plus unknown ones.
  for (const p of queryParams) {
    if (p.name === 'cursor') {
      // A cursor only means something next to the order it was made for: pair each one with every sort.
      const sorts = (queryParams.find((x) => x.name === 'sort')?.schema?.enum as string[] | undefined) ?? [undefined];
      for (const v of CURSOR_VALUES) {
        for (const sort of sorts) {
          const q = requiredQuery.filter(([k]) => k !== p.name && k !== 'sort');
          cursorCases.push({ op: opName, method: method.toUpperCase(), mutating, kind: `query ${v.label}${sort ? ` sort=${sort}` : ''}`, path: basePath() + encodeQuery([...q, ...(sort ? [['sort', sort] as [string, unknown]] : []), [p.name, v.value]]), ...defaultBody() });
        }
      }
    }
    for (const v of QUERY_VALUES) {
      const q = requiredQuery.filter(([k]) => k !== p.name);
      add(`query:${p.name}`, { kind: `query ${p.name}=${v.label}`, path: basePath() + encodeQuery([...q, [p.name, v.value]]), ...defaultBody() });
    }
    if (p.required) add(`query:${p.name}`, { kind: `query ${p.name} missing`, path: basePath() + encodeQuery(requiredQuery.filter(([k]) => k !== p.name)), ...defaultBody() });
  }
  for (const [label, extra] of [
    ['unknown-params', [['zzz', '1'], ['__proto__', 'x'], ['constructor', 'y'], ['toString', 'z']]],
    ['bracket-params', [['a[b]', '1'], ['filter[$gt]', ''], ['__proto__[polluted]', 'yes']]],
    ['many-params', Array.from({ length: 300 }, (_, i) => [`p${i}`, String(i)])],
  ] as Array<[string, Array<[string, unknown]>]>) {
    add('query:unknown', { kind: `query ${label}`, path: basePath() + encodeQuery([...requiredQuery, ...extra]), ...defaultBody() });
  }
  if (method === 'get') {
    add('query:unknown', { kind: 'url over 100 KB', path: `${basePath()}?q=${'A'.repeat(100_000)}`, headers: {}, rawParserMayAnswer: true });
  }

  // JSON body with a schema.
  if (jsonSchema) {
    const props = Object.entries(jsonSchema.properties ?? {});
    for (const [name, schema] of props) {
      for (const v of BODY_VALUES) {
        let body: Record<string, unknown> | undefined = { ...baseBody(), [name]: v.value };
        if (v.label === 'proto-pollution') body = { ...baseBody(), ...(v.value as object), [name]: v.value };
        if (mutating && !certainlyWrongType(schema, v.value)) body = breakBody(body, name);
        if (!body) continue;
        add(`body:${name}`, { kind: `body ${name}=${v.label}`, path: basePath() + encodeQuery(requiredQuery), ...json(body) });
      }
    }
    for (const k of jsonSchema.required ?? []) {
      const body = baseBody();
      delete body[k];
      add('body:missing', { kind: `body missing ${k}`, path: basePath() + encodeQuery(requiredQuery), ...json(body) });
    }
    if (!mutating || (jsonSchema.required ?? []).length) add('body:missing', { kind: 'body {}', path: basePath() + encodeQuery(requiredQuery), ...json({}) });
    const shapes: BadValue[] = [
      { label: 'array', value: [baseBody()] },
      { label: 'string', value: 'just a string' },
      { label: 'number', value: 42 },
      { label: 'false', value: false },
      { label: 'deep-array', value: deepArray(2000) },
      { label: 'huge-array', value: Array.from({ length: 20_000 }, () => ({ a: 1 })) },
      ...(jsonSchema.nullable ? [] : [{ label: 'null', value: null }]),
    ];
    for (const s of shapes) add('body:shape', { kind: `body is ${s.label}`, path: basePath() + encodeQuery(requiredQuery), ...json(s.value) });
    const pp = breakBody({ ...baseBody() }) ?? {};
    add('body:shape', {
      kind: 'body proto-pollution keys',
      path: basePath() + encodeQuery(requiredQuery),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(pp).replace(/^\{/, '{"__proto__":{"role":"admin","isAdmin":true},"constructor":{"prototype":{"role":"admin"}},'),
    });
  }

  // Schemaless bodies: multipart upload routes and the JSON-or-multipart studio routes.
  if (!jsonSchema && consumesMultipart && mutating) {
    const fields: Record<string, unknown> = {};
    for (const f of FORM_FIELDS) fields[f] = BODY_VALUES[Math.floor(rnd() * BODY_VALUES.length)]!.value;
    add('form', { kind: 'json garbage fields', path: basePath(), ...json({ ...fields, ...formBreaker() }) });
    add('form', { kind: 'json array', path: basePath(), ...json([1, 2, 3]) });
    add('form', { kind: 'json string', path: basePath(), ...json('garbage') });
    add('form', { kind: 'json deep', path: basePath(), ...json(deepArray(2000)) });
    add('form', { kind: 'json proto', path: basePath(), headers: { 'content-type': 'application/json' }, body: '{"__proto__":{"role":"admin"},"status":{"x":1}}' });
    add('form', { kind: 'multipart no boundary', path: basePath(), headers: { 'content-type': 'multipart/form-data' }, body: 'garbage' });
    add('form', { kind: 'multipart wrong boundary', path: basePath(), headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body: multipart([{ name: 'x', data: 'y' }], 'other') });
    add('form', { kind: 'multipart truncated', path: basePath(), headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body: multipart([{ name: 'file', filename: 'a.jpg', type: 'image/jpeg', data: Buffer.alloc(2048, 7) }]).subarray(0, 300) });
    add('form', {
      kind: 'multipart garbage file',
      path: basePath(),
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: multipart([
        { name: 'status', data: '{"$fuzz":1}' },
        ...['file', 'image', 'video', 'photo', 'avatar', 'cover'].map((name) => ({ name, filename: '../../evil.jpg', type: 'image/jpeg', data: Buffer.from('this is not an image at all '.repeat(50)) })),
      ]),
    });
    add('form', {
      kind: 'multipart fields only, bad values',
      path: basePath(),
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: multipart([
        { name: 'status', data: 'not-a-status-\u202E' },
        { name: '__proto__', data: 'x' },
        { name: 'price', data: '-5' },
        { name: 'type', data: '<script>' },
        { name: 'title', data: HUGE_BODY_STRING },
      ]),
    });
    add('form', { kind: 'multipart empty', path: basePath(), headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body: `--${BOUNDARY}--\r\n` });
    add('form', { kind: 'octet-stream', path: basePath(), headers: { 'content-type': 'application/octet-stream' }, body: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31) % 256)) });
  }

  // Raw bodies every body-taking route should refuse.
  if (mutating && (hasSchemaBody || consumesMultipart)) {
    add('raw', { kind: 'invalid json', path: basePath() + encodeQuery(requiredQuery), headers: { 'content-type': 'application/json' }, body: '{"a": [1, 2' });
    add('raw', { kind: 'empty json', path: basePath() + encodeQuery(requiredQuery), headers: { 'content-type': 'application/json' }, body: '' });
    add('raw', { kind: 'text/plain', path: basePath() + encodeQuery(requiredQuery), headers: { 'content-type': 'text/plain' }, body: 'hello' });
    add('raw', { kind: 'form-urlencoded', path: basePath() + encodeQuery(requiredQuery), headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1&__proto__[x]=1' });
    // These two carry the (certainly invalid) default body, so a lenient parser cannot turn them into a valid write.
    const d = defaultBody();
    const invalidJson = d.body ?? '{}';
    add('raw', { kind: 'json charset garbage', path: basePath() + encodeQuery(requiredQuery), headers: { 'content-type': 'application/json; charset=utf-1337' }, body: invalidJson });
    add('raw', {
      kind: 'json invalid utf8',
      path: basePath() + encodeQuery(requiredQuery),
      headers: { 'content-type': 'application/json' },
      body: invalidJson.startsWith('{') && invalidJson !== '{}'
        ? Buffer.concat([Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x2c]), Buffer.from(invalidJson.slice(1))])
        : Buffer.from([0x5b, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x5d]),
    });
  }

  // Round-robin over categories, shuffled within each.
  const queues = Object.keys(categories)
    .sort()
    .map((k) => shuffle(categories[k]!, rnd));
  const out: FuzzCase[] = [];
  while (out.length < opts.perRoute && queues.some((q) => q.length)) {
    for (const q of queues) {
      const c = q.shift();
      if (c && out.length < opts.perRoute) out.push(c);
    }
  }
  return [...out, ...cursorCases];
}

function hash32(s: string): number {
  return createHash('sha256').update(s).digest().readUInt32LE(0);
}

// ----------------------------------------------------------------------------------------------------------------
// Raw sender

export interface RawResponse {
  status: number;
  body: unknown;
  text: string;
  contentType: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** Sends exactly the path and bytes given (no URL normalisation), and parses a JSON answer. */
export function send(
  baseUrl: string,
  c: { method: string; path: string; headers: Record<string, string>; body?: Buffer | string; rawParserMayAnswer?: boolean },
  auth?: string,
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  // Node's parser closes the connection after a 414/431: such requests get a connection of their own.
  const ownConnection = !!c.rawParserMayAnswer;
  const body = c.body === undefined ? undefined : Buffer.isBuffer(c.body) ? c.body : Buffer.from(c.body);
  const headers: Record<string, string | number> = { ...c.headers };
  if (auth) headers.authorization = `Bearer ${auth}`;
  if (body) headers['content-length'] = body.length;
  else if (c.method !== 'GET') headers['content-length'] = 0;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method: c.method, path: url.pathname.replace(/\/$/, '') + c.path, headers, agent: ownConnection ? false : agent, timeout: 20_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, text, contentType: String(res.headers['content-type'] ?? '') });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout: ${c.method} ${c.path.slice(0, 200)}`)));
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

// ----------------------------------------------------------------------------------------------------------------
// "Nothing written"

/**
 * Every table's row count and a checksum of its rows (each row serialised, the lines sorted, so no table needs a
 * key to order by): bad input must write nothing anywhere, not only in the tables a test thought of.
 */
export async function dbSnapshot(db: Db): Promise<{ counts: Record<string, number>; checksums: Record<string, string> }> {
  // On PostgreSQL only this app's schema is read (other test apps share the server): Kysely's introspection reads
  // every schema's columns, and fails when another test app drops its schema at that moment.
  const tables = isSqlite(db)
    ? (await db.introspection.getTables()).map((t) => t.name).sort()
    : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db)).rows.map((r) => r.name);
  const counts: Record<string, number> = {};
  const checksums: Record<string, string> = {};
  for (const name of tables) {
    const rows: unknown[] = await (db as any).selectFrom(name).selectAll().execute();
    counts[name] = rows.length;
    const lines = rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).sort();
    checksums[name] = createHash('sha256').update(lines.join('\n')).digest('hex');
  }
  return { counts, checksums };
}
