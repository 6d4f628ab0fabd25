import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { examplesAsRun, selfCommand } from '../../src/cli/self-command.js';

/** The command the CLI's next steps name: the one the person can type where they stand. */
const bin = resolve('bin/agora.js');
const elsewhere = mkdtempSync(join(tmpdir(), 'agora-self-'));
// A directory with a link named `agora` to this program: a global install's bin, or the one npx puts first on PATH.
symlinkSync(bin, join(elsewhere, 'agora'));
// npx's: a link in its cache, put first on the PATH of the run alone.
const npxBin = join(elsewhere, '.npm', '_npx', '3f2a', 'node_modules', '.bin');
mkdirSync(npxBin, { recursive: true });
symlinkSync(bin, join(npxBin, 'agora'));
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

describe('the command the CLI names for itself', () => {
  it('is `agora` when that name on PATH is this program, run as such', () => {
    expect(selfCommand({ PATH: elsewhere }, bin, elsewhere)).toBe('agora');
  });

  it('is `npx agora` when run through npx, though npx put a link named agora on the PATH of the run alone', () => {
    expect(selfCommand({ PATH: [npxBin, elsewhere].join(':') }, bin, process.cwd())).toBe('npx agora');
  });

  it('is `npx agora` inside a checkout, and the path through node elsewhere', () => {
    expect(selfCommand({ PATH: '' }, bin, process.cwd())).toBe('npx agora');
    expect(selfCommand({ PATH: '' }, bin, elsewhere)).toBe(`node ${bin}`);
  });

  it("writes help's example lines as they run where the reader stands, and nothing else", () => {
    const help = 'Usage: agora pages list [options]\n\nExamples:\n  $ agora pages list --fields id | agora pages get -\n  $ source <(agora completion bash)\n  $ AGORA_SECRET_KEY=… agora serve\n  $ agora users export --output u.ndjson && agora users import u.ndjson\n';
    expect(examplesAsRun(help, 'npx agora')).toBe(
      'Usage: agora pages list [options]\n\nExamples:\n  $ npx agora pages list --fields id | npx agora pages get -\n  $ source <(npx agora completion bash)\n  $ AGORA_SECRET_KEY=… npx agora serve\n' +
        '  $ npx agora users export --output u.ndjson && npx agora users import u.ndjson\n',
    );
    expect(examplesAsRun(help, 'agora')).toBe(help);
  });
});
