import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';

/**
 * The served document passes two linters with no error and no warning: Redocly's recommended rules and
 * Spectral's OpenAPI rules (.spectral.yaml says which rule is off, and why). Both run as an integrator would.
 */
const run = promisify(execFile);
const ROOT = resolve(__dirname, '../..');
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);
// No telemetry, no update check: the linters run offline, and say nothing but their findings.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', SCARF_ANALYTICS: 'false', NO_COLOR: '1' };

const api = useApp();
let file: string;

beforeAll(async () => {
  const res = await api.call('GET', '/openapi.json', { as: null });
  file = join(api.dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(res.body, null, 2));
});

/** The command's output whether it exits 0 or not (a linter exits 1 on findings). */
async function output(command: string, args: string[]): Promise<string> {
  try {
    return (await run(command, args, { env, cwd: ROOT, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    if (!failed.stdout) throw new Error(`${command} failed: ${failed.stderr}`, { cause: error });
    return failed.stdout;
  }
}

describe('the OpenAPI document, linted', () => {
  it('passes redocly lint --extends=recommended with 0 errors and 0 warnings', async () => {
    const report = JSON.parse(await output(bin('redocly'), ['lint', '--extends=recommended', '--format=json', file]));
    const problems = report.problems.map((p: { ruleId: string; message: string; location: { pointer: string }[] }) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('passes spectral lint (spectral:oas) with 0 errors and 0 warnings', async () => {
    const findings = JSON.parse(await output(bin('spectral'), ['lint', '--ruleset', join(ROOT, '.spectral.yaml'), '--format', 'json', '--quiet', file]) || '[]');
    expect(findings.map((f: { code: string; message: string; path: string[] }) => `${f.code}: ${f.message} at ${f.path.join('.')}`)).toEqual([]);
  });
});
