import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The documents stay what issue 32 made them: a short README as the front door, one document per reader under
 * docs/, and links that lead somewhere (a renamed file or heading breaks a link silently otherwise).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = ['architecture', 'api', 'operations', 'security', 'performance'].map((name) => `docs/${name}.md`);
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Markdown without its fenced code blocks, where a `#` or a `[x](y)` is text, not a heading or a link. */
const withoutFences = (markdown: string) => markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
/** ... and without inline code either. */
const prose = (markdown: string) => withoutFences(markdown).replace(/`[^`\n]*`/g, '');

/** Every link target written `[text](target)` or `[label]: target`, as written. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const references = [...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1]!);
  return [...inline, ...references];
}

/** The anchors GitHub gives a document's headings: lower case, punctuation dropped, spaces as '-', repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, title] of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = title!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count ? `${base}-${count}` : base);
  }
  return anchors;
}

/** What is wrong with each relative link of a document (empty when every one leads to a file, and heading, of the repository). */
function brokenLinks(path: string, markdown = read(path)): string[] {
  const problems: string[] = [];
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not a file of ours
    const [file = '', anchor] = target.split('#', 2) as [string, string?];
    const absolute = file ? resolve(ROOT, dirname(path), decodeURIComponent(file)) : join(ROOT, path);
    const inside = relative(ROOT, absolute);
    const text = () => (file ? readFileSync(absolute, 'utf8') : markdown);
    if (inside.startsWith('..')) problems.push(`${target}: outside the repository`);
    else if (file && !existsSync(absolute)) problems.push(`${target}: no such file`);
    else if (anchor && (!file || absolute.endsWith('.md')) && !headingAnchors(text()).has(anchor))
      problems.push(`${target}: no heading #${anchor} in ${inside}`);
  }
  return problems;
}

describe('the documents', () => {
  it('keeps the README a front door of at most 400 lines, starting with the set-up commands', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(400);
    const firstBlock = readme.slice(0, readme.indexOf('```', readme.indexOf('```') + 3));
    expect(firstBlock).toContain('npm install && npm start');
    expect(firstBlock).toContain('npm install && npm test');
    expect(firstBlock).toContain('npm run test:pg');
  });

  it("says in the README why each dependency is there", () => {
    const table = read('README.md').split('## Dependencies: why each is there')[1] ?? '';
    const named = new Set(
      [...table.matchAll(/^\|([^|]+)\|/gm)].flatMap(([, cell]) => cell!.split(',').map((name) => name.replace(/\(dev\)/, '').trim())),
    );
    const pkg = JSON.parse(read('package.json')) as Record<'dependencies' | 'devDependencies', Record<string, string>>;
    const missing = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter(
      (name) => !named.has(name) && !(name.startsWith('@types/') && named.has('@types/*')),
    );
    expect(missing).toEqual([]);
  });

  it('has a document for each reader, a changelog and a guide for contributors', () => {
    for (const path of [...DOCS, 'CHANGELOG.md', 'CONTRIBUTING.md']) {
      expect(existsSync(join(ROOT, path)), path).toBe(true);
      expect(statSync(join(ROOT, path)).size, path).toBeGreaterThan(500);
    }
    expect(read('CHANGELOG.md')).toMatch(/^## \[Unreleased\]$/m);
  });

  it('links only to files and headings that exist inside the repository', () => {
    const documents = [
      'README.md',
      'CHANGELOG.md',
      'CONTRIBUTING.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
    ];
    const broken = documents.flatMap((path) => brokenLinks(path).map((problem) => `${path}: ${problem}`));
    expect(broken).toEqual([]);
    // The README reaches every document of docs/.
    const fromReadme = linkTargets(read('README.md')).map((target) => target.split('#')[0]);
    for (const path of DOCS) expect(fromReadme, path).toContain(path);
  });

  it('keeps every source file under src/ at most 400 lines', () => {
    const files = (dir: string): string[] =>
      readdirSync(join(ROOT, dir)).flatMap((name) => {
        const path = `${dir}/${name}`;
        return statSync(join(ROOT, path)).isDirectory() ? files(path) : /\.ts$/.test(name) ? [path] : [];
      });
    const long = files('src')
      .map((path) => ({ path, lines: read(path).split('\n').length - 1 }))
      .filter(({ lines }) => lines > 400);
    expect(long).toEqual([]);
  });

  it('cites in code comments only documents inside the repository', () => {
    // The planning documents beside the repository (the contract, the specification, the style guide) are not
    // shipped with it: a reader of the code finds what a comment cites in docs/ instead.
    const outside = /\bCONTRACT\b|interface-spec|STYLE\.md/;
    const files = (dir: string): string[] =>
      readdirSync(join(ROOT, dir)).flatMap((name) => {
        const path = `${dir}/${name}`;
        return statSync(join(ROOT, path)).isDirectory() ? files(path) : /\.(ts|mjs|js)$/.test(name) ? [path] : [];
      });
    const citing = ['src', 'test', 'bench', 'scripts']
      .flatMap(files)
      .filter((path) => path !== 'test/docs.test.ts' && outside.test(read(path)));
    expect(citing).toEqual([]);
  });

  it('finds a broken link, a link outside the repository and a missing heading', () => {
    // The checks above are only as good as the parsing: a link each way they can go wrong.
    const markdown =
      '# Title\n\n## Set-up: the `npm` way\n\n[a](none.md) [b](../../shared/CONTRACT.md) [c](#set-up-the-npm-way) ' +
      '[d](#setup) [e](api.md#limits) [f](security.md#limits) [g](https://example.org/x.md)\n\n```\n[h](in-code.md)\n```\n';
    expect([...headingAnchors(markdown)]).toEqual(['title', 'set-up-the-npm-way']);
    expect(brokenLinks('docs/example.md', markdown)).toEqual([
      'none.md: no such file',
      '../../shared/CONTRACT.md: outside the repository',
      '#setup: no heading #setup in docs/example.md',
      'api.md#limits: no heading #limits in docs/api.md',
    ]);
  });
});
