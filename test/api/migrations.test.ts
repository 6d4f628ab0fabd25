import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nameKey } from '../../src/shared/latin-lookalikes.js';
import { countersFor } from '../../src/store/counters.js';
import { counterTriggers, counterTriggersPg } from '../../src/store/migrations/counting.js';
import { COUNTED_BY_STATEMENT, statementTriggers } from '../../src/store/migrations/0048-counted-by-statement.js';
import { openStore } from '../../src/store/open.js';
import { userBody } from '../helpers/api.js';
import { startApp } from '../helpers/app.js';
import { KNOWN_MIGRATIONS } from '../../src/store/store.js';
import { migrateOnly, migrationFiles, MIGRATIONS_DIR, schemaDump } from '../helpers/migrations.js';
import { removeDir } from '../helpers/server.js';
import { onPostgres, openRaw, storeTargetFor, TEST_SECRET_KEY } from '../helpers/store-target.js';

/**
 * The numbered migrations are frozen (a migration is a snapshot of its day: it never imports the store's live
 * code, which moves on) and run in name order on both engines: a store migrated from any older version ends
 * with the schema of a new one, and one migrated out of order is refused.
 */
const root = mkdtempSync(join(tmpdir(), 'agora-migrations-'));
afterAll(() => removeDir(root));
const options = onPostgres ? { secretKey: TEST_SECRET_KEY } : {};
let made = 0;
/** A new, empty store (a SQLite file, or on PostgreSQL an empty schema of its own). */
const emptyStore = () => storeTargetFor(mkdtempSync(join(root, `s${made++}-`)), { empty: true });
const opened = async (target: string) => (await openStore(target, options)).close();

describe('the migrations', () => {
  it('import nothing but Kysely and each other: no live code of src/', () => {
    const files = readdirSync(MIGRATIONS_DIR).filter((file) => file.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(KNOWN_MIGRATIONS.length);
    const outside: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(MIGRATIONS_DIR, file), 'utf8');
      // Static imports and re-exports, bare imports, and dynamic ones.
      const specifiers = /^(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]|^import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]/gm;
      for (const match of text.matchAll(specifiers)) {
        const from = match[1] ?? match[2] ?? match[3]!;
        if (from !== 'kysely' && !/^\.\/[\w-]+\.js$/.test(from)) outside.push(`${file}: ${from}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it('are the files of the folder, one number each, applied in name order', () => {
    expect(migrationFiles()).toEqual([...KNOWN_MIGRATIONS]);
    const numbers = KNOWN_MIGRATIONS.map((name) => name.slice(0, 4));
    expect(new Set(numbers).size).toBe(numbers.length);
  });

  it('give a store migrated from each older version the schema and rows of a new one', async () => {
    const fresh = await emptyStore();
    await opened(fresh);
    const expected = await schemaDump(fresh);
    expect(expected.migrations).toEqual([...KNOWN_MIGRATIONS]);
    for (let applied = 1; applied < KNOWN_MIGRATIONS.length; applied++) {
      const older = await emptyStore();
      await migrateOnly(older, KNOWN_MIGRATIONS.slice(0, applied));
      await opened(older);
      expect(await schemaDump(older), `from ${KNOWN_MIGRATIONS[applied - 1]}`).toEqual(expected);
    }
  });

  it('0036 spells each audit entry\'s target type as its action\'s resource (a suspension is on a `user`)', async () => {
    const older = await emptyStore();
    await migrateOnly(older, KNOWN_MIGRATIONS.slice(0, KNOWN_MIGRATIONS.indexOf('0036-audit-target-types')));
    const raw = await openRaw(older);
    const entries = [
      ['user.suspend', 'User'],
      ['status.remove', 'Status'],
      ['comment.remove', 'Comment'],
      ['report.resolve', 'Report'],
      ['user.create', 'user'],
      ['webhook_delivery.redeliver', 'webhook_delivery'],
    ];
    for (const [i, [action, type]] of entries.entries())
      await raw.all('insert into audit_log (id, created_at, actor_id, action, target_type, target_id, summary, request_id) values (?, ?, null, ?, ?, ?, ?, null)', [
        `${i}`.padStart(32, '0'),
        '2026-11-27T00:00:00.000Z',
        action,
        type,
        'f'.repeat(32),
        'an entry',
      ]);
    await raw.close();
    await opened(older);
    const after = await openRaw(older);
    const rows = await after.all<{ action: string; target_type: string }>('select action, target_type from audit_log order by id');
    await after.close();
    expect(rows.map((r) => [r.action, r.target_type])).toEqual(entries.map(([action]) => [action, action!.split('.')[0]]));
  });

  it('0045 empties the excerpt of reports on content removed before it, as a removal now does', async () => {
    const dir = mkdtempSync(join(root, 'app-'));
    const app = await startApp({ dir });
    const [author, reporter] = [await app.member(), await app.member()];
    const post = (content: string) => app.ok('POST', '/statuses', author, { user_id: author.user.id, content });
    const [removed, kept] = [await post('removed before 0045'), await post('still there')];
    const report = (id: string) => app.ok('POST', '/reports', reporter, { user_id: reporter.user.id, target_type: 'Status', target_id: id, reason: 'spam' });
    const [onRemoved, onKept] = [await report(removed.id), await report(kept.id)];
    expect((await app.call('DELETE', `/statuses/${removed.id}`)).status).toBe(204);
    await app.close();
    // As an older agora left it: the removal kept the report's excerpt, and 0045 was not applied.
    const raw = await openRaw(app.file);
    await raw.all('update reports set excerpt = ? where id = ?', ['removed before 0045', onRemoved.id]);
    // (Those after it too, which may run again: migrations apply in name order only.)
    await raw.all('delete from kysely_migration where name >= ?', ['0045-unquote-removed-reports']);
    await raw.close();
    await opened(app.file);
    const after = await openRaw(app.file);
    const rows = await after.all<{ id: string; excerpt: string }>('select id, excerpt from reports order by id');
    await after.close();
    expect(Object.fromEntries(rows.map((r) => [r.id, r.excerpt]))).toEqual({ [onRemoved.id]: '', [onKept.id]: 'still there' });
  });

  it('0046 gives secret pages and their events made before secret slugs the slug a new one gets', async () => {
    const dir = mkdtempSync(join(root, 'app-'));
    const app = await startApp({ dir });
    const ada = await app.member();
    const config = await app.ok('POST', '/page_configurations', undefined, { name: `Old slugs ${Date.now()}` });
    const page = (name: string, privacy: string) => app.ok('POST', '/pages', ada, { name, privacy, page_configuration_id: config.id, user_id: ada.user.id });
    const [secret, numbered, open] = [await page('Night Shift', 'secret'), await page('Back Room', 'secret'), await page('Night Shift', 'public')];
    const room = await page('Room 101', 'secret');
    const dates = { start_date: '2030-01-01T10:00:00Z', end_date: '2030-01-01T12:00:00Z' };
    const [hidden, shown] = [
      await app.ok('POST', '/events', ada, { name: 'Quiet Gathering', page_id: secret.id, user_id: ada.user.id, ...dates }),
      await app.ok('POST', '/events', ada, { name: 'Open Gathering', page_id: open.id, user_id: ada.user.id, ...dates }),
    ];
    // What Ada is told of her page and her event (a follow, a yes) names them by their slugs too.
    const bob = await app.member();
    await app.ok('POST', '/follows', undefined, { user_id: bob.user.id, followable_type: 'Page', followable_id: secret.id });
    await app.ok('PUT', `/events/${hidden.id}/attendance`, bob, { user_id: bob.user.id, answer: 'yes' });
    await app.close();
    // As an older agora left them: plain slugs (a numbered one where the name was taken), and 0046 not applied.
    const raw = await openRaw(app.file);
    await raw.all('update pages set slug = ? where id = ?', ['night-shift-x', open.id]);
    await raw.all('update pages set slug = ? where id = ?', ['night-shift', secret.id]);
    await raw.all('update pages set slug = ? where id = ?', ['back-room-2', numbered.id]);
    await raw.all('update pages set slug = ? where id = ?', ['room-101', room.id]);
    await raw.all('update events set slug = ? where id = ?', ['quiet-gathering', hidden.id]);
    const told = ['target', 'final_target', 'link'];
    for (const [id, slug] of [[secret.id, 'night-shift'], [hidden.id, 'quiet-gathering']])
      for (const column of told) await raw.all(`update notification_contents set ${column}_slug = ? where ${column}_id = ?`, [slug, id]);
    await raw.all('delete from kysely_migration where name >= ?', ['0046-hidden-slugs']);
    await raw.close();
    await opened(app.file);
    const after = await openRaw(app.file);
    const slugs = async (table: string) =>
      Object.fromEntries((await after.all<{ id: string; slug: string }>(`select id, slug from ${table}`)).map((r) => [r.id, r.slug]));
    /** The slugs the notifications give each page or event they name, by its id. */
    const toldSlugs = async () => {
      const named: Record<string, string[]> = {};
      for (const column of told)
        for (const r of await after.all<{ id: string; slug: string }>(`select ${column}_id as id, ${column}_slug as slug from notification_contents where ${column}_type in ('Page', 'Event')`))
          (named[r.id] ??= []).push(r.slug);
      return named;
    };
    const [pages, events, named] = [await slugs('pages'), await slugs('events'), await toldSlugs()];
    await after.close();
    // Once moved, a notification naming the old slug would name a page of the same name made since (or nothing).
    expect(new Set(named[secret.id])).toEqual(new Set([pages[secret.id]]));
    expect(new Set(named[hidden.id])).toEqual(new Set([events[hidden.id]]));
    expect(pages[secret.id]).toBe(`night-shift-h${secret.id.slice(-8)}`);
    expect(pages[numbered.id]).toBe(`back-room-h${numbered.id.slice(-8)}`);
    // From its name: a number in the name stays (a new page named so gets `room-101-h…`).
    expect(pages[room.id]).toBe(`room-101-h${room.id.slice(-8)}`);
    expect(room.slug).toBe(pages[room.id]);
    expect(pages[open.id]).toBe('night-shift-x');
    expect(events[hidden.id]).toBe(`quiet-gathering-h${hidden.id.slice(-8)}`);
    expect(events[shown.id]).toBe(shown.slug);
    // A slug already made so is left as it was: the migration may run again (its record lost, or before it).
    const again = await openRaw(app.file);
    await again.all('delete from kysely_migration where name >= ?', ['0046-hidden-slugs']);
    await again.close();
    await opened(app.file);
    const last = await openRaw(app.file);
    expect(Object.fromEntries((await last.all<{ id: string; slug: string }>('select id, slug from pages')).map((r) => [r.id, r.slug]))).toEqual(pages);
    expect(Object.fromEntries((await last.all<{ id: string; slug: string }>('select id, slug from events')).map((r) => [r.id, r.slug]))).toEqual(events);
    await last.close();
  });

  it('0047 keeps users who look alike already, the oldest of each with the skeleton: none new may look like them', async () => {
    const dir = mkdtempSync(join(root, 'app-'));
    const older = await storeTargetFor(dir, { empty: true });
    await migrateOnly(older, KNOWN_MIGRATIONS.slice(0, KNOWN_MIGRATIONS.indexOf('0047-nickname-lookalikes')));
    // Oldest first (in id order): a Latin nickname then its lookalike, a lookalike then its Latin one, three alike, a
    // lookalike alone, and one like no other.
    const nicknames = ['ada', '\u0430da', '\u0392ob', 'bob', '\u0435ve', 'eve', 'ev\u0435', 'd\u0430ve', 'carol'];
    const ids = nicknames.map((_, i) => `${i + 1}`.padStart(32, '0'));
    const raw = await openRaw(older);
    const [members] = await raw.all<{ id: string }>("select id from permission_sets where system_key = 'members'");
    const now = '2026-11-27T00:00:00.000Z';
    for (const [i, nickname] of nicknames.entries()) {
      const user = {
        id: ids[i], first_name: 'Old', last_name: 'User', nickname, nickname_key: nameKey(nickname), email: `old${i}@example.org`,
        password_hash: 'x', permission_set_id: members!.id, slug: `old-${i}`,
        conditions_accepted_at: now, confidentiality_accepted_at: now, created_at: now, updated_at: now,
      };
      const columns = Object.keys(user);
      await raw.all(`insert into users (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`, Object.values(user));
    }
    await raw.close();
    /** Each user's skeleton, by nickname. */
    const skeletons = async () => {
      const after = await openRaw(older);
      const rows = await after.all<{ nickname: string; nickname_skeleton: string | null }>(
        `select nickname, nickname_skeleton from users where id in (${ids.map(() => '?').join(', ')})`,
        ids,
      );
      await after.close();
      return Object.fromEntries(rows.map((r) => [r.nickname, r.nickname_skeleton]));
    };
    const app = await startApp({ dir });
    const written = {
      ada: 'ada',
      '\u0430da': null,
      '\u0392ob': 'bob',
      bob: null,
      '\u0435ve': 'eve',
      eve: null,
      'ev\u0435': null,
      'd\u0430ve': 'dave',
      carol: 'carol',
    };
    try {
      expect(await skeletons()).toEqual(written);
      // Each is still found by their own nickname, exactly.
      const found = async (nickname: string) =>
        (await app.ok('GET', `/users?nickname=${encodeURIComponent(nickname)}`)).items.map((u: { id: string }) => u.id);
      for (const [i, nickname] of nicknames.entries()) expect(await found(nickname), nickname).toEqual([ids[i]]);
      // No new nickname may look like theirs, whichever kept the skeleton.
      for (const nickname of ['\u0430d\u0430', 'B\u043eb', '\u0435v\u0435', 'dave', 'c\u0430rol']) {
        const res = await app.call('POST', '/users', { body: userBody({ nickname }) });
        expect(res.status, nickname).toBe(409);
        expect(res.body.error.code).toBe('nickname_taken');
        const free = await app.ok('GET', `/users/nickname_availability?nickname=${encodeURIComponent(nickname)}`);
        expect(free.available, nickname).toBe(false);
      }
    } finally {
      await app.close();
    }
    // Run again (its record lost with those of the migrations after it, or an older migration's test running it
    // again), it writes the same.
    const again = await openRaw(older);
    await again.all('delete from kysely_migration where name >= ?', ['0047-nickname-lookalikes']);
    await again.close();
    await opened(older);
    expect(await skeletons()).toEqual(written);
  });

  it('apply none of those pending when one fails, naming it: the store opens once what was in its way is gone', async () => {
    const target = await emptyStore();
    // A table in the way of 0006, after five migrations that succeed.
    const raw = await openRaw(target);
    try {
      await raw.exec('create table audit_log (id integer)');
      await expect(openStore(target, options)).rejects.toThrow(/database migration 0006-audit failed: .*audit_log/);
      const tables = onPostgres
        ? 'select table_name as name from information_schema.tables where table_schema = current_schema()'
        : "select name from sqlite_master where type = 'table'";
      expect(await raw.all(tables)).toEqual([{ name: 'audit_log' }]);
      await raw.exec('drop table audit_log');
    } finally {
      await raw.close();
    }
    await opened(target);
  });

  it('refuse a store that applied a later migration before an earlier one, naming both, and change nothing', async () => {
    // As main's builds left a store for a few minutes on 22 November: 0006 applied before 0004 and 0005 existed.
    const target = await emptyStore();
    const first = ['0001-foundation', '0002-membership', '0003-content', '0006-audit'];
    await migrateOnly(target, first);
    await expect(openStore(target, options)).rejects.toThrow(/applied migration 0006-audit where 0004-hardening comes first/);
    const raw = await openRaw(target);
    try {
      expect((await raw.all<{ name: string }>('select name from kysely_migration order by name')).map((r) => r.name)).toEqual(first);
    } finally {
      await raw.close();
    }
  });

  // The migrations' frozen trigger generator (migrations/counting.ts) over the live specification (counters.ts, which
  // `admin check` recounts by): a change to what is counted comes with its migration.
  it("leave the counting triggers counters.ts specifies: a change to what is counted comes with its migration", async () => {
    const target = await emptyStore();
    await opened(target);
    const raw = await openRaw(target);
    try {
      const specs = countersFor(onPostgres ? 'postgres' : 'sqlite');
      if (!onPostgres) {
        const kept = await raw.all<{ sql: string }>("select sql from sqlite_master where type = 'trigger' and name like '%\\_counts\\_%' escape '\\'");
        expect(kept.map((t) => t.sql.replace(/^CREATE TRIGGER/, 'create trigger')).sort()).toEqual(specs.flatMap(counterTriggers).sort());
        return;
      }
      // PostgreSQL: each trigger's function, as its body.
      const kept = await raw.all<{ name: string; body: string }>(
        `select proname as name, prosrc as body from pg_proc where pronamespace = current_schema()::regnamespace and proname like '%\\_counts\\_%'`,
      );
      const bodies = specs
        // Reports and removed content counted by statement since migration 0048.
        .flatMap((spec) => (COUNTED_BY_STATEMENT.includes(spec.list) ? statementTriggers(spec) : counterTriggersPg(spec)))
        .map((statement) => /^create function (\w+)\(\).*?\$\$(.*)\$\$$/s.exec(statement))
        .filter((match) => match !== null)
        .map((match) => `${match[1]}:${match[2]}`);
      expect(kept.map((f) => `${f.name}:${f.body}`).sort()).toEqual(bodies.sort());
    } finally {
      await raw.close();
    }
  });
});
