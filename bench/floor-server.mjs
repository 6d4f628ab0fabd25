#!/usr/bin/env node
// The floor of agora's stack (issue 29): a bare Fastify 5 + `pg` (or better-sqlite3) server answering
// `GET /public-api/v1/pages` (first page only: `per_page`, `privacy`) on a database agora made, with what agora
// answers there (the same records, `total_items`, the `Link` of the next page), and nothing else: the caller is
// checked once (Api-Key/Api-Secret against the stored scrypt hash) then remembered in memory (by a digest of the
// secret), secret pages are hidden from those not in them (as `visible` in agora's src/store/pages.ts), and the
// rows and the kept total (`list_counts`) come from ONE named prepared statement, its shape picked by the caller and
// the filter.
// Run by read-path.mjs: `node bench/floor-server.mjs postgres://…/db` (or a SQLite file, read-only, each statement
// prepared once, its LIMIT written `? + 0` as agora's so that SQLite does not prepare it again on every run) prints
// `listening on http://127.0.0.1:PORT`.
// It reads agora's schema (api_keys, users, permission_sets, pages, follows, list_counts): a change there shows
// as a difference between its answers and agora's, which read-path.mjs checks before measuring.

import { createHash, scrypt, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import Fastify from 'fastify';

const url = process.argv[2];
if (!url) throw new Error('usage: node bench/floor-server.mjs postgres://…/database | FILE.db');
const onPg = /^postgres(ql)?:/.test(url);
const pool = onPg ? await pgPool(url) : sqlitePool(url);

async function pgPool(connectionString) {
  const { default: pg } = await import('pg');
  // agora's pool size on PostgreSQL (src/store/postgres.ts).
  return new pg.Pool({ connectionString, max: 10 });
}

/** `pool.query` over one read-only SQLite connection: `$n` written `@pn`, each statement prepared once. */
function sqlitePool(file) {
  const db = new (createRequire(import.meta.url)('better-sqlite3'))(file, { readonly: true, fileMustExist: true });
  db.pragma('mmap_size = 2147418112');
  const statements = new Map();
  return {
    async query({ name, text, values }) {
      let statement = statements.get(name);
      if (!statement) statements.set(name, (statement = db.prepare(text.replace(/\$(\d+)/g, '@p$1').replace(/limit (@p\d+)/g, 'limit $1 + 0'))));
      return { rows: statement.all(Object.fromEntries(values.map((value, i) => [`p${i + 1}`, value]))) };
    },
    end: async () => db.close(),
  };
}

const COLUMNS = 'p.id, p.name, p.slug, p.description, p.privacy, p.page_configuration_id, p.user_id, p.created_at, p.updated_at';
const kept = (key) => `coalesce((select n from list_counts where key = ${key}), 0)`;
/**
 * The secret pages a Member is in or created: two short index walks, their follows of secret pages (the follow's
 * copy of its page's secrecy, `secret_page`, and its partial index) and the secret pages they created.
 */
const SEEN = `select f.followable_id as id from follows f where f.user_id = $1 and f.followable_type = 'Page' and f.secret_page = 1
  union select p.id from pages p where p.user_id = $1 and p.privacy = 'secret'`;
const seenCount = `(select count(*) from (${SEEN}) seen)`;
/**
 * The rows (one more than asked: a next page?) beside the total, one row with no page when the list is empty
 * (SQLite has no lateral join: a left join of the total to the ordered rows, which it walks in index order).
 */
const statement = (name, total, where, limit = '$2') => ({
  name,
  text: onPg
    ? `select t.total, r.* from (select (${total})::bigint as total) t left join lateral (
    select ${COLUMNS} from pages p where ${where} order by p.id limit ${limit}) r on true`
    : `select t.total, r.* from (select (${total}) as total) t left join (
    select ${COLUMNS} from pages p where ${where} order by p.id limit ${limit}) r on true`,
});
// $1 the viewer, or the privacy filter where the viewer does not matter; then the rows to read.
const SHAPES = {
  // An Admin's every page.
  all: statement('floor_pages_all', kept(`'pages|*|*|*'`), 'true', '$1'),
  // A privacy that hides nothing (public, private), or an Admin's secret pages.
  byPrivacy: statement('floor_pages_privacy', kept(`'pages|*|*|' || $1`), 'p.privacy = $1'),
  // A Member, every page: those not secret and the secret ones they are in.
  member: statement(
    'floor_pages_member',
    `${kept(`'pages|*|*|*'`)} - ${kept(`'pages|*|*|secret'`)} + ${seenCount}`,
    `(p.privacy <> 'secret' or p.id in (${SEEN}))`,
  ),
  memberSecret: statement('floor_pages_member_secret', seenCount, `p.privacy = 'secret' and p.id in (${SEEN})`),
};

/** The callers seen: api key → the pending or settled check (its secret's digest, the user, Admin or not). */
const callers = new Map();
const digest = (s) => createHash('sha256').update(s).digest();
const scryptOk = (secret, stored) =>
  new Promise((ok) => {
    const [scheme, n, r, p, salt, hash] = stored.split('$');
    if (scheme !== 'scrypt' || !salt || !hash) return ok(false);
    const expected = Buffer.from(hash, 'base64url');
    scrypt(secret, Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: 64 << 20 }, (err, key) =>
      ok(!err && timingSafeEqual(key, expected)),
    );
  });
async function check(key, secret) {
  const { rows } = await pool.query({
    name: 'floor_key',
    text: `select k.secret_hash, u.id as user_id, ps.system_key from api_keys k join users u on u.id = k.user_id
      join permission_sets ps on ps.id = u.permission_set_id where k.api_key = $1`,
    values: [key],
  });
  if (!rows[0] || !(await scryptOk(secret, rows[0].secret_hash))) return undefined;
  return { digest: digest(secret), userId: rows[0].user_id, isAdmin: rows[0].system_key === 'admins' };
}
async function callerOf(headers) {
  const key = headers['api-key'];
  const secret = headers['api-secret'];
  if (typeof key !== 'string' || typeof secret !== 'string' || key.length > 200 || secret.length > 200) return undefined;
  let known = callers.get(key);
  if (!known) {
    known = check(key, secret);
    callers.set(key, known);
    const settled = await known;
    if (!settled) callers.delete(key);
    return settled;
  }
  const caller = await known;
  return caller && timingSafeEqual(caller.digest, digest(secret)) ? caller : undefined;
}

const PRIVACIES = new Set(['public', 'private', 'secret']);
const app = Fastify({ logger: false });
const fail = (reply, status, code, message) => reply.code(status).send({ error: { code, message } });

app.get('/public-api/v1/pages', async (request, reply) => {
  const caller = await callerOf(request.headers);
  if (!caller) return fail(reply, 401, 'unauthorized', 'Invalid API key or secret');
  const { per_page: perPageText = '25', privacy, ...rest } = request.query;
  const perPage = Number(perPageText);
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > 100) return fail(reply, 400, 'invalid_query', 'per_page: 1 to 100');
  if (privacy !== undefined && !PRIVACIES.has(privacy)) return fail(reply, 400, 'invalid_query', 'privacy: public, private or secret');
  if (Object.keys(rest).length) return fail(reply, 400, 'invalid_query', 'the floor answers first pages only (per_page, privacy)');
  const [shape, ...values] =
    privacy === undefined
      ? caller.isAdmin ? [SHAPES.all] : [SHAPES.member, caller.userId]
      : privacy === 'secret' && !caller.isAdmin ? [SHAPES.memberSecret, caller.userId] : [SHAPES.byPrivacy, privacy];
  const { rows } = await pool.query({ ...shape, values: [...values, perPage + 1] });
  const total = Number(rows[0].total);
  const items = rows[0].id === null ? [] : rows.slice(0, perPage).map(({ total: _, ...page }) => page);
  if (rows.length > perPage) {
    const params = new URLSearchParams(request.url.split('?', 2)[1] ?? '');
    params.set('cursor', Buffer.from(JSON.stringify([items.at(-1).id])).toString('base64url'));
    reply.header('link', `<${request.url.split('?', 1)[0]}?${params.toString()}>; rel="next"`);
  }
  return reply.type('application/json; charset=utf-8').send(JSON.stringify({ items, total_items: total }));
});

await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening on http://127.0.0.1:${app.server.address().port}\n`);
const close = () => app.close().then(() => pool.end()).finally(() => process.exit(0));
process.on('SIGTERM', close);
process.on('SIGINT', close);
// Never outlive the bench that started it.
process.stdout.on('error', () => process.exit(0));
