import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, createPageConfiguration, createUser, createUserWithKey, userBody } from '../helpers/api.js';
import { runCli, runCliTty } from '../helpers/cli.js';
import { BIN, removeDir, startServer, useServer } from '../helpers/server.js';
import { envFor, freshHome } from './support.js';

const server = useServer();

const reportOf = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { row: number; status: string; id?: string; error?: { code: string } })
    .sort((a, b) => a.row - b.row);


describe('agora users import', () => {
  it('reads CSV with a BOM, quoted commas and line breaks; creates the good rows, reports the bad, exits 1', async () => {
    const dir = freshHome(server);
    const tag = Date.now().toString(36);
    const csv =
      '\uFEFFfirst_name,last_name,nickname,email,password,accept_conditions,accept_confidentiality\r\n' +
      `"Ada, Countess",Lovelace,ada_${tag},ada_${tag}@example.org,secret123,true,true\r\n` +
      `Bad,Row,bad row,not-an-email,secret123,true,true\r\n` +
      `Grace,"Hopper\nthe Admiral",grace_${tag},grace_${tag}@example.org,secret123,true,true\r\n`;
    writeFileSync(join(dir, 'users.csv'), csv);
    const result = await runCli(['users', 'import', join(dir, 'users.csv'), '--report', join(dir, 'report.ndjson')], {
      home: dir,
      env: envFor(server),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('created 2, already there 0, failed 1\n');
    expect(result.stderr).toContain('1 of 3 rows failed');
    const report = reportOf(join(dir, 'report.ndjson'));
    expect(report.map((r) => [r.row, r.status, r.error?.code])).toEqual([
      [1, 'created', undefined],
      [2, 'failed', 'validation_failed'],
      [3, 'created', undefined],
    ]);
    const ada = (await call(server, 'GET', `/users/${report[0]!.id}`)).body;
    expect(ada.first_name).toBe('Ada, Countess');
    const grace = (await call(server, 'GET', `/users/${report[2]!.id}`)).body;
    expect(grace.last_name).toBe('Hopper\nthe Admiral');
  });

  it('reads a JSON array and NDJSON from a file or standard input; a rerun creates nothing twice', async () => {
    const dir = freshHome(server);
    const good = [userBody(), userBody()];
    const json = JSON.stringify([good[0], { ...userBody(), password: 'short' }, good[1]]);
    writeFileSync(join(dir, 'users.json'), json);
    const first = await runCli(['users', 'import', join(dir, 'users.json')], { home: dir, env: envFor(server) });
    expect(first.code).toBe(1);
    expect(first.stdout).toBe('created 2, already there 0, failed 1\n');
    // The same rows again, as NDJSON on standard input: already there, by their Idempotency-Keys.
    const ndjson = `${JSON.stringify(good[0])}\n\nnot json\n${JSON.stringify(good[1])}\n`;
    const again = await runCli(['users', 'import', '-', '--format', 'ndjson', '--json'], { home: dir, env: envFor(server), input: ndjson });
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toEqual({ created: 0, already: 2, failed: 1, valid: 0, skipped: 0, left_out: 0 });
    for (const user of good) expect((await call(server, 'GET', `/users?nickname=${user.nickname}`)).body.total_items).toBe(1);
  });

  it('derives each row\'s Idempotency-Key from all of the row but its password', async () => {
    const dir = freshHome(server);
    const rows = [userBody(), userBody()];
    // Without a password column: --password-file gives it; a rerun with another password is still the same rows.
    const ndjson = rows.map(({ password: _password, ...row }) => JSON.stringify(row)).join('\n');
    writeFileSync(join(dir, 'users.ndjson'), `${ndjson}\n`);
    writeFileSync(join(dir, 'first'), 'firstPass123\n');
    writeFileSync(join(dir, 'second'), 'secondPass456\n');
    const run = (password: string) =>
      runCli(['users', 'import', join(dir, 'users.ndjson'), '--password-file', join(dir, password), '--report', join(dir, `${password}.ndjson`)], {
        home: dir,
        env: envFor(server),
      });
    expect((await run('first')).stdout).toBe('created 2, already there 0, failed 0\n');
    expect((await run('second')).stdout).toBe('created 0, already there 2, failed 0\n');
    expect(reportOf(join(dir, 'second.ndjson')).map((r) => r.id)).toEqual(reportOf(join(dir, 'first.ndjson')).map((r) => r.id));
  });

  it('keys a row by what it says, not how its format spells it: the same users from CSV and then JSON are already there', async () => {
    const dir = freshHome(server);
    const rows = [userBody(), userBody()];
    const columns = Object.keys(rows[0]!);
    // CSV spells the consents "true" and may capitalise an email; JSON says true. The rows are the same users.
    const csv = [columns.join(','), ...rows.map((r) => columns.map((c) => (c === 'email' ? String(r[c]).toUpperCase() : String(r[c]))).join(','))];
    writeFileSync(join(dir, 'users.csv'), `${csv.join('\n')}\n`);
    writeFileSync(join(dir, 'users.json'), JSON.stringify(rows));
    const first = await runCli(['users', 'import', join(dir, 'users.csv')], { home: dir, env: envFor(server) });
    expect(first.stdout).toBe('created 2, already there 0, failed 0\n');
    const again = await runCli(['users', 'import', join(dir, 'users.json')], { home: dir, env: envFor(server) });
    expect(again.stdout).toBe('created 0, already there 2, failed 0\n');
    expect(again.code).toBe(0);
  });

  it('--dry-run validates and sends nothing', async () => {
    const dir = freshHome(server);
    const user = userBody();
    writeFileSync(join(dir, 'u.ndjson'), `${JSON.stringify(user)}\n${JSON.stringify({ ...user, email: 'x' })}\n`);
    const result = await runCli(['users', 'import', join(dir, 'u.ndjson'), '--dry-run'], { home: dir, env: envFor(server) });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('dry run: 1 of 2 rows valid, 1 invalid; nothing sent\n');
    expect((await call(server, 'GET', `/users?nickname=${user.nickname}`)).body.total_items).toBe(0);
  });

  it('needs --format for standard input, and names a file it cannot read', async () => {
    const dir = freshHome(server);
    const noFormat = await runCli(['users', 'import', '-'], { home: dir, env: envFor(server) });
    expect(noFormat.code).toBe(2);
    expect(noFormat.stderr).toContain('--format');
    writeFileSync(join(dir, 'broken.csv'), 'first_name,last_name\n"never closed,x\n');
    const broken = await runCli(['users', 'import', join(dir, 'broken.csv')], { home: dir, env: envFor(server) });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/broken\.csv cannot be read as CSV/);
    writeFileSync(join(dir, 'twice.csv'), 'first_name,last_name,first_name\nAda,L,Grace\n');
    const twice = await runCli(['users', 'import', join(dir, 'twice.csv')], { home: dir, env: envFor(server) });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/twice\.csv cannot be read as CSV after row 0: its header names the column first_name twice/);
  });
});

describe('agora users import, as a newcomer meets it', () => {
  const header = 'first_name,last_name,nickname,email,password,accept_conditions,accept_confidentiality';

  it('shows why rows failed on stderr when there is no --report, the first 10 of them', async () => {
    const dir = freshHome(server);
    const rows = Array.from({ length: 12 }, (_, i) => `Bad,Row,bad nick ${i},bad${i}@example.org,secret123,true,true`);
    writeFileSync(join(dir, 'bad.csv'), `${header}\n${rows.join('\n')}\n`);
    const result = await runCli(['users', 'import', join(dir, 'bad.csv'), '--concurrency', '1'], { home: dir, env: envFor(server) });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('created 0, already there 0, failed 12\n');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(11);
    expect(lines[0]).toBe('row 1: nickname: may contain only letters, digits, ".", "_" and "-" (validation_failed)');
    expect(lines[10]).toMatch(
      new RegExp(`^error: 12 of 12 rows failed \\(the first 10 above; every row in ${join(dir, '.local', 'state', 'agora', 'imports')}/bad\\.csv-[0-9a-f]{8}\\.report\\.ndjson\\)$`),
    );
  });

  it('refuses a CSV whose header lacks a column every row needs, before sending anything (exit 2)', async () => {
    const dir = freshHome(server);
    writeFileSync(join(dir, 'contacts.csv'), 'name,email\nPat,pat@example.org\n');
    const result = await runCli(['users', 'import', join(dir, 'contacts.csv')], { home: dir, env: envFor(server) });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `error: ${join(dir, 'contacts.csv')} has no column first_name, last_name, nickname, password, accept_conditions, accept_confidentiality ` +
        '(its header: name, email); users import reads first_name, last_name, nickname, email, password, accept_conditions, accept_confidentiality; ' +
        'give every row the same first password with --password-file FILE\n',
    );
    // A password column may be left out when --password-file gives it.
    writeFileSync(join(dir, 'nopassword.csv'), 'first_name,last_name,nickname,email,accept_conditions,accept_confidentiality\n');
    writeFileSync(join(dir, 'password'), 'imported123\n');
    const withFile = await runCli(['users', 'import', join(dir, 'nopassword.csv'), '--password-file', join(dir, 'password')], { home: dir, env: envFor(server) });
    expect(withFile.code).toBe(0);
    expect(withFile.stderr).toBe(`${join(dir, 'nopassword.csv')} has no rows: nothing to import\n`);
  });

  it('names a missing file, a report or password file it cannot use, in one line each', async () => {
    const dir = freshHome(server);
    writeFileSync(join(dir, 'one.csv'), `${header}\nPat,Doe,pat_${Date.now()},pat${Date.now()}@example.org,secret123,true,true\n`);
    const cases: [string[], number, string][] = [
      [['users', 'import', join(dir, 'missing.csv')], 1, `error: ${join(dir, 'missing.csv')}: no such file\n`],
      [['users', 'import', dir, '--format', 'csv'], 1, `error: ${dir} is a folder, not a file to import\n`],
      [['users', 'import', join(dir, 'one.csv'), '--report', join(dir, 'no', 'r.ndjson')], 2, `error: --report ${join(dir, 'no', 'r.ndjson')} cannot be written (no such folder)\n`],
      [['users', 'import', join(dir, 'one.csv'), '--password-file', join(dir, 'nope')], 2, `error: --password-file ${join(dir, 'nope')} cannot be read (no such file)\n`],
    ];
    for (const [args, code, stderr] of cases) {
      const result = await runCli(args, { home: dir, env: envFor(server) });
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code, stderr });
    }
    // Nothing was sent by any of them.
    expect(existsSync(join(dir, 'no'))).toBe(false);
  });
});

describe('pages import and follows import', () => {
  it('take the names people know records by (a configuration, a nickname, a slug); an unknown one fails its row', async () => {
    const dir = freshHome(server);
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const tag = Date.now().toString(36);
    writeFileSync(
      join(dir, 'pages.csv'),
      `name,page_configuration_id,privacy,user_id\nKnitting ${tag},${config.name},public,${owner.nickname}\nChess ${tag},No such kind,public,${owner.nickname}\n`,
    );
    const pages = await runCli(['pages', 'import', join(dir, 'pages.csv'), '--report', join(dir, 'pages.ndjson')], { home: dir, env: envFor(server) });
    expect(pages.code).toBe(1);
    expect(pages.stdout).toBe('created 1, already there 0, failed 1\n');
    const [created, failed] = reportOf(join(dir, 'pages.ndjson'));
    expect(failed).toMatchObject({ row: 2, status: 'failed', error: { code: 'not_found', message: 'No page configuration with the id or name "No such kind"' } });
    const page = (await call(server, 'GET', `/pages/${created!.id}`)).body;
    expect(page).toMatchObject({ page_configuration_id: config.id, user_id: owner.id, slug: `knitting-${tag}` });

    const follower = await createUser(server);
    writeFileSync(
      join(dir, 'follows.ndjson'),
      `${JSON.stringify({ user_id: follower.nickname, followable_type: 'page', followable_id: page.slug })}\n` +
        `${JSON.stringify({ user_id: follower.nickname, followable_type: 'User', followable_id: owner.nickname })}\n`,
    );
    const follows = await runCli(['follows', 'import', join(dir, 'follows.ndjson'), '--json'], { home: dir, env: envFor(server) });
    expect(JSON.parse(follows.stdout)).toEqual({ created: 2, already: 0, failed: 0, valid: 0, skipped: 0, left_out: 0 });
    const again = await runCli(['follows', 'import', join(dir, 'follows.ndjson'), '--json'], { home: dir, env: envFor(server) });
    expect(JSON.parse(again.stdout)).toEqual({ created: 0, already: 2, failed: 0, valid: 0, skipped: 0, left_out: 0 });
    const followed = (await call(server, 'GET', `/follows?user_id=${follower.id}`)).body.items.map((f: { followable_id: string }) => f.followable_id);
    expect(followed.sort()).toEqual([page.id, owner.id].sort());
  });
});

describe('follows import of follows made another way', () => {
  it('counts a follow the user already has as already there (exit 0), as a rerun finds the rows it created, with its id', async () => {
    const dir = freshHome(server);
    const [follower, followed, other] = [await createUser(server), await createUser(server), await createUser(server)];
    // Made with `follows create`, not by an import: no Idempotency-Key of the import finds it, the API refuses it (409).
    const made = await call(server, 'POST', '/follows', { body: { user_id: follower.id, followable_type: 'User', followable_id: followed.id } });
    expect(made.status).toBe(201);
    writeFileSync(
      join(dir, 'follows.csv'),
      `user_id,followable_type,followable_id\n${follower.nickname},user,${followed.nickname}\n${follower.nickname},User,${other.nickname}\n`,
    );
    const result = await runCli(['follows', 'import', join(dir, 'follows.csv'), '--report', join(dir, 'report.ndjson')], { home: dir, env: envFor(server) });
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 0, stdout: 'created 1, already there 1, failed 0\n', stderr: '' });
    expect(reportOf(join(dir, 'report.ndjson')).map((r) => [r.row, r.status, r.id])).toEqual([
      [1, 'already', made.body.id],
      [2, 'created', expect.any(String)],
    ]);
  });
});

describe('a run killed half-way, then --resume', () => {
  // 2,000 rows, killed after 600 with 16 calls in flight: the rows sent but not yet in the report when the kill
  // lands are what --resume must not create twice, and as many are in flight at 2,000 rows as at 10,000 (its
  // size before: 22 s more CPU a run, and up to 85 s alone on a loaded machine, for the same cases).
  it('leaves each of 2,000 rows created exactly once', async () => {
    const dir = freshHome(server);
    const config = await createPageConfiguration(server);
    const me = (await call(server, 'GET', '/me')).body.id as string;
    const tag = Date.now().toString(36);
    const lines = ['name,page_configuration_id,privacy,user_id'];
    for (let i = 1; i <= 2_000; i++) lines.push(`Imported ${tag} ${i},${config.id},public,${me}`);
    writeFileSync(join(dir, 'pages.csv'), `${lines.join('\n')}\n`);
    const report = join(dir, 'report.ndjson');
    const args = [BIN, 'pages', 'import', join(dir, 'pages.csv'), '--report', report, '--concurrency', '16'];
    const env = { ...process.env, HOME: dir, XDG_CONFIG_HOME: join(dir, '.config'), ...envFor(server) };
    const child = spawn(process.execPath, args, { env, stdio: 'ignore' });
    // Killed without warning once a good share of the rows are in.
    await new Promise<void>((ok) => {
      const poll = setInterval(() => {
        const done = existsSync(report) ? readFileSync(report, 'utf8').split('\n').length : 0;
        if (done > 600 || child.exitCode !== null) {
          clearInterval(poll);
          child.kill('SIGKILL');
          ok();
        }
      }, 20);
    });
    await new Promise((ok) => child.once('close', ok));
    const before = readFileSync(report, 'utf8').split('\n').length;
    expect(before).toBeLessThan(2_000);
    const resumed = await runCli(['pages', 'import', join(dir, 'pages.csv'), '--report', report, '--resume', '--json'], {
      home: dir,
      env: envFor(server),
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = JSON.parse(resumed.stdout);
    expect(summary.failed).toBe(0);
    expect(summary.created + summary.already + summary.skipped).toBe(2_000);
    expect(summary.skipped).toBeGreaterThan(400);
    // Every name once: walk the owner's pages of that configuration.
    const names = new Map<string, number>();
    for (let page = 1; ; page++) {
      const res = await call(server, 'GET', `/pages?page_configuration_id=${config.id}&per_page=100&page=${page}`);
      for (const p of res.body.items as { name: string }[]) names.set(p.name, (names.get(p.name) ?? 0) + 1);
      if (res.body.items.length < 100) break;
    }
    expect(names.size).toBe(2_000);
    expect([...names.values()].every((n) => n === 1)).toBe(true);
  }, 300_000);
});

describe('agora users import of a file that is not UTF-8', () => {
  it('refuses it, saying where, rather than importing "Jos\uFFFD"; a UTF-16 CSV with its byte order mark is still read', async () => {
    const dir = freshHome(server);
    const tag = Date.now().toString(36);
    const head = 'first_name,last_name,nickname,email,password,accept_conditions,accept_confidentiality\n';
    writeFileSync(join(dir, 'latin1.csv'), Buffer.from(`${head}Jos\u00e9,M\u00fcller,lat_${tag},lat_${tag}@example.org,secret123,true,true\n`, 'latin1'));
    const latin1 = { first_name: 'Jos\u00e9', last_name: 'B', nickname: `latnd_${tag}`, email: `latnd_${tag}@example.org`, password: 'secret123', accept_conditions: true, accept_confidentiality: true };
    writeFileSync(join(dir, 'latin1.ndjson'), Buffer.from(`${JSON.stringify(latin1)}\n`, 'latin1'));
    for (const [file, nickname] of [['latin1.csv', `lat_${tag}`], ['latin1.ndjson', `latnd_${tag}`]]) {
      const result = await runCli(['users', 'import', join(dir, file!)], { home: dir, env: envFor(server) });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(/not UTF-8 text \(at byte \d+\)/);
      expect(result.stderr).not.toContain('Unhandled');
      const found = await call(server, 'GET', `/users?nickname=${nickname}`);
      expect((found.body as { total_items: number }).total_items).toBe(0);
    }
    const bom = Buffer.from([0xff, 0xfe]);
    writeFileSync(join(dir, 'utf16.csv'), Buffer.concat([bom, Buffer.from(`${head}Jos\u00e9,B,u16_${tag},u16_${tag}@example.org,secret123,true,true\n`, 'utf16le')]));
    const utf16 = await runCli(['users', 'import', join(dir, 'utf16.csv')], { home: dir, env: envFor(server) });
    expect(utf16.code, utf16.stderr).toBe(0);
    const created = await call(server, 'GET', `/users?nickname=u16_${tag}`);
    expect((created.body as { items: { first_name: string }[] }).items[0]!.first_name).toBe('Jos\u00e9');
  });
});

describe('agora users export', () => {
  it('streams NDJSON and CSV without passwords; a Member without users.export is refused', async () => {
    const dir = freshHome(server);
    const ndjson = await runCli(['users', 'export'], { home: dir, env: envFor(server) });
    expect(ndjson.code).toBe(0);
    const rows = ndjson.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(rows.length).toBeGreaterThan(0);
    expect(Object.keys(rows[0])).toEqual(['id', 'first_name', 'last_name', 'nickname', 'email', 'role', 'accept_conditions', 'accept_confidentiality', 'created_at']);
    expect(ndjson.stdout).not.toMatch(/password|scrypt/);
    const csv = await runCli(['users', 'export', '--format', 'csv', '--output', join(dir, 'users.csv')], { home: dir, env: envFor(server) });
    expect(csv.code).toBe(0);
    expect(readFileSync(join(dir, 'users.csv'), 'utf8').split('\r\n')[0]).toBe(
      'id,first_name,last_name,nickname,email,role,accept_conditions,accept_confidentiality,created_at',
    );
    expect(csv.stdout).toMatch(/^exported \d+ users to .*users\.csv\n$/);
    expect(Number(/exported (\d+)/.exec(csv.stdout)![1])).toBe(rows.length);
    const { creds } = await createUserWithKey(server);
    const member = await runCli(['users', 'export', '--output', join(dir, 'refused.ndjson')], { home: dir, env: envFor(server, creds) });
    expect(member.code).toBe(1);
    expect(member.stderr).toContain('users.export');
    // Whole or not at all: a refused (or broken) export leaves no file, not even a partial one.
    expect(readdirSync(dir).filter((f) => f.includes('refused'))).toEqual([]);
    const nowhere = await runCli(['users', 'export', '--output', join(dir, 'no', 'x.ndjson')], { home: dir, env: envFor(server) });
    expect(nowhere).toMatchObject({ code: 2, stderr: `error: --output ${join(dir, 'no', 'x.ndjson')} cannot be written (no such folder)\n` });
  });

  it('to a terminal: exits 0, and a name holding escape sequences or bidirectional controls is shown, not acted on', async () => {
    // Before, the pipeline ended the terminal's stdout and the exit's flush crashed on it (ERR_STREAM_WRITE_AFTER_END,
    // exit 1 and a stack trace), after writing ESC, OSC and U+202E to the terminal as they were.
    const dir = freshHome(server);
    const tag = Date.now().toString(36);
    await createUser(server, { nickname: `ttyexp_${tag}`, first_name: 'Evil\u001b]0;pwned\u0007\u001b[2J', last_name: 'Bidi\u202eevil\u009b1m' });
    for (const format of ['ndjson', 'csv']) {
      const tty = await runCliTty(['users', 'export', '--format', format], { home: dir, env: envFor(server), timeoutMs: 20_000 });
      expect(tty.code, tty.stdout).toBe(0);
      expect(tty.stdout).not.toContain('ERR_STREAM');
      const line = tty.stdout.split('\n').find((l) => l.includes(`ttyexp_${tag}`))!.replace(/\r+$/, '');
      expect(line).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
      if (format === 'ndjson') {
        // The same JSON, its controls as \u escapes.
        expect(JSON.parse(line).first_name).toBe('Evil\u001b]0;pwned\u0007\u001b[2J');
        expect(line).toContain('Bidi\\u202eevil\\u009b1m');
      } else expect(line).toContain('Evil␛]0;pwned␇␛[2J,Bidi\\u202eevil\\x9b1m');
    }
    // Piped, the server's text exactly.
    const piped = await runCli(['users', 'export', '--format', 'csv'], { home: dir, env: envFor(server) });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain('Evil\u001b]0;pwned\u0007\u001b[2J,Bidi\u202eevil\u009b1m');
  });

  it('export, then import into a fresh server with --password-file, recreates the users', async () => {
    const dir = freshHome(server);
    // One more Admin than the bootstrap one: the import must carry the role over, not drop the column.
    const promoted = await createUser(server);
    const admins = (await call(server, 'GET', '/permission_sets')).body.items.find((r: { name: string }) => r.name === 'Admins');
    expect((await call(server, 'PUT', `/users/${promoted.id}/role`, { body: { permission_set_id: admins.id } })).status).toBe(200);
    // Names a spreadsheet would run as formulas (CSV injection): written after a `'`, imported as they were.
    const formula = await createUser(server, { first_name: `=HYPERLINK("http://evil.example","x")`, last_name: "@SUM(1+1)*cmd|' /C calc'!A0" });
    // Names that already start with a ' before such a character: the import's taking off a ' must leave them whole.
    const quoted = await createUser(server, { first_name: "'=already quoted", last_name: "''-)" });
    const exported = join(dir, 'users.csv');
    expect((await runCli(['users', 'export', '--format', 'csv', '--output', exported], { home: dir, env: envFor(server) })).code).toBe(0);
    const source = readFileSync(exported, 'utf8').trim().split('\r\n').length - 1;
    const formulaRow = readFileSync(exported, 'utf8').split('\r\n').find((l) => l.startsWith(formula.id))!;
    expect(formulaRow).toBe(`${formula.id},"'=HYPERLINK(""http://evil.example"",""x"")",'@SUM(1+1)*cmd|' /C calc'!A0,${formula.nickname},${formula.email},Members,true,true,${formula.created_at}`);
    expect(readFileSync(exported, 'utf8')).not.toMatch(/(^|,|")[=+\-@]/m);
    const fresh = await startServer();
    try {
      writeFileSync(join(dir, 'password'), 'imported123\n');
      const result = await runCli(['users', 'import', exported, '--password-file', join(dir, 'password'), '--json'], {
        home: dir,
        env: envFor(fresh),
      });
      // The bootstrap administrator exists on both sides: that row is left out, saying so; every other is created.
      expect(JSON.parse(result.stdout)).toMatchObject({ created: source - 1, failed: 0, left_out: 1 });
      const plain = await runCli(['users', 'import', exported, '--password-file', join(dir, 'password')], { home: dir, env: envFor(fresh) });
      expect(plain.stderr).toMatch(/^row \d+: skipped: admin is the bootstrap administrator every server makes for itself/m);
      const again = await runCli(['users', 'export'], { home: dir, env: envFor(fresh) });
      const nicknames = (out: string) => out.trim().split('\n').map((l) => JSON.parse(l).nickname).sort();
      expect(nicknames(again.stdout)).toEqual(nicknames((await runCli(['users', 'export'], { home: dir, env: envFor(server) })).stdout));
      // Each user's role came along (an exported Admin is an Admin on the new server).
      const roles = (out: string) => Object.fromEntries(out.trim().split('\n').map((l) => JSON.parse(l)).map((u) => [u.nickname, u.role]));
      expect(roles(again.stdout)).toEqual(roles((await runCli(['users', 'export'], { home: dir, env: envFor(server) })).stdout));
      const names = (out: string) => out.trim().split('\n').map((l) => JSON.parse(l)).find((u) => u.nickname === formula.nickname);
      expect(names(again.stdout)).toMatchObject({ first_name: formula.first_name, last_name: formula.last_name });
      const quotedAgain = again.stdout.trim().split('\n').map((l) => JSON.parse(l)).find((u) => u.nickname === quoted.nickname);
      expect(quotedAgain).toMatchObject({ first_name: "'=already quoted", last_name: "''-)" });
    } finally {
      await fresh.stop();
      removeDir(fresh.dir);
    }
  });
});

describe('the HTTP client', () => {
  it('gives up after --timeout seconds on a server that never answers, naming the URL', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((ok) => silent.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    try {
      const dir = freshHome(server);
      const env = { AGORA_URL: url, AGORA_API_KEY: 'ak_x', AGORA_API_SECRET: 'as_x' };
      const flag = await runCli(['pages', 'list', '--timeout', '0.5'], { home: dir, env });
      expect(flag.code).toBe(1);
      expect(flag.stderr).toBe(`error: No answer from ${url}/public-api/v1/pages after 0.5 s (raise it with --timeout or AGORA_TIMEOUT)\n`);
      const fromEnv = await runCli(['pages', 'list'], { home: dir, env: { ...env, AGORA_TIMEOUT: '0.5' } });
      expect(fromEnv.stderr).toContain('after 0.5 s');
      const bad = await runCli(['pages', 'list'], { home: dir, env: { ...env, AGORA_TIMEOUT: 'soon' } });
      expect(bad.code).toBe(2);
    } finally {
      silent.close();
    }
  });

  it('reports a damaged credentials file clearly', async () => {
    const dir = freshHome(server);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, '.config', 'agora'), { recursive: true });
    writeFileSync(join(dir, '.config', 'agora', 'credentials.json'), '{"profiles": {"default": {"url": 1}}');
    const result = await runCli(['pages', 'list'], { home: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: The credentials file .*credentials\.json is damaged \(.*\): repair it, or delete it and run npx agora login again\n$/);
    // A URL, a key and a secret all in the environment need no file: the damaged one is not read.
    const fromEnv = await runCli(['pages', 'list', '--json'], { home: dir, env: envFor(server) });
    expect(fromEnv.stderr).toBe('');
    expect(fromEnv.code).toBe(0);
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ items: expect.any(Array), total_items: expect.any(Number) });
  });
});

describe('rate limits', () => {
  it('an import that meets 429 waits Retry-After and finishes with every row once', async () => {
    const limited = await startServer({ env: { AGORA_RATE_LIMIT: '20', AGORA_RATE_LIMIT_BURST: '20' } });
    try {
      const dir = freshHome(limited);
      const config = await createPageConfiguration(limited);
      const me = (await call(limited, 'GET', '/me')).body.id as string;
      const rows = Array.from({ length: 40 }, (_, i) => JSON.stringify({ name: `Limited ${i}`, page_configuration_id: config.id, privacy: 'public', user_id: me }));
      writeFileSync(join(dir, 'pages.ndjson'), `${rows.join('\n')}\n`);
      const result = await runCli(['pages', 'import', join(dir, 'pages.ndjson'), '--json'], { home: dir, env: envFor(limited) });
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ created: 40, failed: 0 });
      // The import spent the key's bucket: this check waits out a 429's Retry-After as any client would.
      const list = () => call(limited, 'GET', `/pages?page_configuration_id=${config.id}&per_page=100`);
      let listed = await list();
      if (listed.status === 429) {
        await new Promise((resolve) => setTimeout(resolve, Number(listed.headers.get('retry-after')) * 1000));
        listed = await list();
      }
      expect(listed.status).toBe(200);
      expect(new Set(listed.body.items.map((p: { name: string }) => p.name)).size).toBe(40);
      expect(listed.body.total_items).toBe(40);
    } finally {
      await limited.stop();
      removeDir(limited.dir);
    }
  }, 60_000);
});
