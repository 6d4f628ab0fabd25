// `npm run test:pg`: the whole test suite on PostgreSQL. Builds, then runs vitest with AGORA_TEST_DB: every app
// and server of the tests gets a schema of its own in that database (test/helpers/store-target.ts). Without
// AGORA_TEST_DB, a fresh database is created on the server of AGORA_PG_URL (default
// postgres://postgres@127.0.0.1:5432/postgres) and dropped at the end, whatever happened. Arguments are passed to
// vitest (files, -t …); without files every test file runs. The few tests that are about SQLite itself (its file,
// modes, WAL) are skipped there, each with `[skipped on PostgreSQL: why]` in its name (sqliteOnly()).

import { spawnSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const server = process.env.AGORA_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const given = process.env.AGORA_TEST_DB;
const name = `agora_test_${process.pid}_${randomBytes(3).toString('hex')}`;
const admin = async (sql) => {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
};

let url = given;
if (!url) {
  try {
    await admin(`create database ${name}`);
  } catch (error) {
    console.error(`PostgreSQL run SKIPPED: cannot create a database on ${server.replace(/:[^:@/]*@/, ':***@')}: ${error.message}`);
    process.exit(1);
  }
  const base = new URL(server);
  base.pathname = `/${name}`;
  url = base.toString();
}
const drop = async () => {
  if (!given) await admin(`drop database if exists ${name} with (force)`).catch((e) => console.error(`could not drop ${name}: ${e.message}`));
};

let code;
try {
  if (spawnSync('npm', ['run', 'build'], { stdio: 'inherit' }).status !== 0) throw new Error('build failed');
  const args = process.argv.slice(2);
  const child = spawn('npx', ['vitest', 'run', ...args], { stdio: 'inherit', env: { ...process.env, AGORA_TEST_DB: url } });
  const stop = (signal) => child.kill(signal);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  code = await new Promise((resolve) => child.on('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))));
} finally {
  await drop();
}
process.exit(code);
