import { describe, expect, it } from 'vitest';
import type { MembershipItem, ReportItem } from '../../src/shared/schemas/moderation.js';
import { describeItem, question, reportedThing, rowCells } from '../../src/cli/queue/items.js';
import { columns, truncate } from '../../src/cli/table.js';
import { reasonLine, type QueueView } from '../../src/cli/queue/view.js';

/** What `agora queue` draws of a report: text from users, made safe as every server string is (safe-text.ts). */
describe('a report in the queue', () => {
  const item = {
    kind: 'report',
    id: 'r1',
    target: { type: 'Status', id: 's1', excerpt: 'buy\u202e now\u001b[2J', user: { nickname: 'bo\u200fb', name: 'Bo B' } },
    page: { name: 'Garden\u001b]0;owned\u0007 Club', privacy: 'private' },
    user: { nickname: 'piper', name: 'Piper' },
    reason: 'spam',
    reports: 2,
    created_at: '2026-11-26T10:00:00.000Z',
  } as unknown as ReportItem;

  it('shows control characters and bidirectional overrides from the content, the page and the author as visible stand-ins', () => {
    const drawn = [reportedThing(item), describeItem(item), question('remove', item), question('suspend', item), ...rowCells(item)];
    for (const text of drawn) expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(reportedThing(item, 60)).toBe('bo\\u200fb\'s status "buy\\u202e now␛[2J" in Garden␛]0;owned␇ Club');
  });

  it('marks the author suspended while the suspension lasts, not once it is past its end', () => {
    const now = Date.parse('2026-11-26T12:00:00.000Z');
    const suspended = (until: string | null) =>
      ({ ...item, target: { ...item.target, user: { nickname: 'bob', suspension: { reason: 'spam', until, created_at: item.created_at, created_by: 'a' } } } }) as ReportItem;
    expect(rowCells(suspended(null), now)[1]).toBe('bob (suspended): buy\\u202e now␛[2J');
    expect(rowCells(suspended('2026-12-01T00:00:00.000Z'), now)[1]).toMatch(/^bob \(suspended\): /);
    expect(rowCells(suspended('2026-11-26T11:00:00.000Z'), now)[1]).toMatch(/^bob: /);
  });

  it('says the content is hidden when the API shows no excerpt (its author suspended), not empty quotes', () => {
    const hidden = { ...item, target: { ...item.target, excerpt: null, user: { nickname: 'eve' } } } as unknown as ReportItem;
    expect(reportedThing(hidden)).toBe('eve\'s status (hidden: its author is suspended) in Garden␛]0;owned␇ Club');
    expect(rowCells(hidden)[1]).toBe('eve: (hidden: its author is suspended)');
    expect(question('remove', hidden)).not.toContain('""');
  });
});

describe('an API error on a terminal', () => {
  it("names the request id of the server's own failure (its log names it), not of a refusal", async () => {
    const { apiErrorText } = await import('../../src/cli/errors.js');
    const body = (id: string) => ({ error: { code: 'x', message: 'm', request_id: id } });
    expect(apiErrorText({ message: 'Internal error: the error has been logged', code: 'internal_error', status: 500, body: body('01a2\u001b[2J') })).toBe(
      'Internal error: the error has been logged (internal_error, HTTP 500, request 01a2␛[2J)',
    );
    expect(apiErrorText({ message: 'No', code: 'forbidden', status: 403, body: body('01a3') })).toBe('No (forbidden, HTTP 403)');
  });
});

describe('a request or invite in the queue', () => {
  it("marks a suspended user's (it cannot be accepted while the suspension lasts), not once it is past its end", () => {
    const now = Date.parse('2026-11-26T12:00:00.000Z');
    const request = (suspension: object | null) =>
      ({
        kind: 'page_access_request',
        id: 'q1',
        page: { name: 'Garden Club', privacy: 'private' },
        user: { nickname: 'bob', name: 'Bob', suspension },
        created_at: '2026-11-26T10:00:00.000Z',
      }) as unknown as MembershipItem;
    const until = (at: string | null) => ({ reason: 'spam', until: at, created_at: '2026-11-26T09:00:00.000Z', created_by: 'a' });
    expect(rowCells(request(null), now)).toEqual(['Garden Club', 'bob']);
    expect(rowCells(request(until(null)), now)).toEqual(['Garden Club', 'bob (suspended)']);
    expect(rowCells(request(until('2026-11-26T11:00:00.000Z')), now)).toEqual(['Garden Club', 'bob']);
  });
});

/**
 * Cells and lines cut for a terminal (tables, `agora queue`): never wider than asked, whatever string-width version
 * measures them after (ink's counts emoji newer than cli-table3's as two columns), and never inside a character.
 */
describe('cutting text to a width', () => {
  it('counts an emoji newer than string-width 4 as two columns, so that ink never cuts the line again', () => {
    expect(truncate('🫠'.repeat(10), 8)).toBe('🫠🫠🫠…');
    expect(truncate('a🥹b', 3)).toBe('a…');
  });
  it('keeps a flag, a joined family and a toned thumb whole: cut before them, never inside', () => {
    for (const emoji of ['🇯🇵', '👨‍👩‍👧', '👍🏽']) {
      const cut = truncate(`ab${emoji.repeat(5)}`, 7);
      expect(cut.endsWith('…')).toBe(true);
      expect(cut.slice(2, -1).split(emoji).every((part) => part === ''), cut).toBe(true);
    }
  });
  it('leaves text that fits as it is, and cuts wide characters by their columns', () => {
    expect(truncate('abc', 3)).toBe('abc');
    expect(truncate('日本語日本語', 7)).toBe('日本語…');
    expect(truncate('abc', 0)).toBe('');
  });
});

/** The suspension reason typed in `agora queue`: it and the cursor stay in sight however long it grows. */
describe("the reason's line", () => {
  it('is whole when it fits', () => {
    expect(reasonLine('reported for spam', 'abc', 80)).toBe('reason [reported for spam]: abc█  ⏎ suspend  esc cancel');
  });
  it('keeps the end of what is typed and the cursor at any width, never wider than the line', () => {
    const typed = `${'a warning, '.repeat(30)}the end`;
    for (const width of [20, 40, 60, 80, 100]) {
      const line = reasonLine('reported for other', typed, width);
      expect(columns(line), line).toBe(width);
      expect(line, line).toMatch(/: …[a-z, ]*the end█$/);
    }
    expect(reasonLine('reported for other', 'Spam after', 20)).toBe('reason: Spam after█');
    expect(truncate('abcdef', 4, 'end')).toBe('…def');
  });
});

/**
 * The queue as ink draws it, `columns` wide, as its lines: a live list of `items`, the first selected, on a screen 12
 * rows high, unless `state` says otherwise.
 */
async function drawQueue(items: ReportItem[], state: Partial<QueueView> = {}, columns = 80): Promise<string[]> {
  const { renderToString } = await import('ink');
  const { queueView } = await import('../../src/cli/queue/view.js');
  const view: QueueView = {
    items, total: items.length, index: 0, selected: items[0], mode: 'list', pending: undefined, reason: '', message: { text: '', tone: 'plain' },
    live: true, current: true, maySuspend: true, group: undefined, size: { columns, rows: 12 }, color: false, ...state,
  };
  return renderToString(queueView(view), { columns }).split('\n');
}

/** The queue's list as ink draws it: a column cut with `…` never runs into the next. */
describe("the queue's rows", () => {
  it('keep a space between a page name cut short and who is reported; a question cut keeps its (y/N)', async () => {
    const report = {
      kind: 'report',
      id: 'r1',
      target: { type: 'Status', id: 's1', excerpt: 'Buy cheap watches now', user: { nickname: 'n'.repeat(30), name: 'N' } },
      page: { name: 'The Very Long Named Community Garden Allotment Society', privacy: 'public' },
      user: { nickname: 'ada', name: 'Ada' },
      reason: 'spam',
      reports: 1,
      created_at: new Date().toISOString(),
    } as unknown as ReportItem;
    const row = (await drawQueue([report])).find((line) => line.startsWith('› report'));
    expect(row).toMatch(/^› report {4}The Very Long Named Communi… n{30}: /);
    // Asked, the question too long for the line is cut before its (y/N), which stays in sight.
    expect((await drawQueue([report], { mode: 'confirm', pending: { verb: 'remove', item: report } })).at(-1)).toMatch(/^Remove n{30}'s status .*… \(y\/N\)$/);
  });
});

/** After a spam wave: more waiting than the queue loads (its first page, the oldest). */
describe("the queue's title", () => {
  it('says when only the oldest items are shown, and not when all are', async () => {
    const report = { kind: 'report', id: 'r1', target: { type: 'User', id: 'u1', excerpt: 'troll', user: { nickname: 'troll', name: 'T' } },
      page: null, user: { nickname: 'ada', name: 'Ada' }, reason: 'spam', reports: 1, created_at: new Date().toISOString() } as unknown as ReportItem;
    const title = async (total: number) => (await drawQueue([report], { total }))[0];
    expect(await title(312)).toMatch(/^agora queue · 312 waiting \(the oldest 1 shown\) +● live$/);
    expect(await title(1)).toMatch(/^agora queue · 1 waiting +● live$/);
  });
});

/** A target reported by many: how many is what a moderator sorts a busy queue by, never cut. */
describe("the queue's KIND column", () => {
  it('shows a count of 10 reports or more whole (report ×12, report ×130), at 80 columns as at 100', async () => {
    const report = (id: string, reports: number) =>
      ({
        kind: 'report',
        id,
        target: { type: 'Status', id: `s${id}`, excerpt: 'BUY FOLLOWERS NOW', user: { nickname: 'spammer', name: 'S' } },
        page: { name: 'Town Square', privacy: 'public' },
        user: { nickname: 'ada', name: 'Ada' },
        reason: 'spam',
        reports,
        created_at: new Date().toISOString(),
      }) as unknown as ReportItem;
    const items = [report('r1', 12), report('r2', 130), report('r3', 3)];
    for (const columns of [80, 100]) {
      const lines = await drawQueue(items, {}, columns);
      expect(lines.find((l) => l.startsWith('› ')), lines.join('\n')).toMatch(/^› report ×12 +Town Square +spammer: BUY FOLLOWERS NOW/);
      expect(lines.find((l) => l.includes('×130')), lines.join('\n')).toMatch(/^ {2}report ×130 Town Square +spammer: BUY/);
      expect(lines.find((l) => l.includes('×3')), lines.join('\n')).toMatch(/^ {2}report ×3 +Town Square +spammer: BUY/);
      expect(Math.max(...lines.map((l) => columns === 80 ? l.length : 0))).toBeLessThanOrEqual(80);
    }
  });
});

/** The details of a target many reported, each with a long comment: more lines than the screen holds. */
describe("a report's details, longer than the screen", () => {
  it('keep their first lines whole and in order, cut at the bottom (not squeezed onto each other)', async () => {
    const item = {
      kind: 'report',
      id: 'r1',
      target: { type: 'User', id: 'u1', excerpt: null, user: { nickname: 'spammer2', name: 'Spam Two' } },
      page: null,
      user: { nickname: 'reporter01', name: 'R' },
      reason: 'spam',
      reports: 30,
      created_at: new Date().toISOString(),
    } as unknown as ReportItem;
    const reports = Array.from({ length: 30 }, (_, i) => ({
      id: `g${i}`,
      reporter: `reporter${String(i + 1).padStart(2, '0')}`,
      reason: 'spam',
      comment: 'this account posts crypto scams all day long in the Town Square and Market pages',
      created_at: item.created_at,
    }));
    const lines = await drawQueue([item], { mode: 'details', group: { itemId: 'r1', reports }, size: { columns: 80, rows: 24 } });
    expect(lines.slice(1, 5), lines.join('\n')).toEqual([
      expect.stringMatching(/^kind {7}report \(30 open\)$/),
      expect.stringMatching(/^id {9}r1$/),
      expect.stringMatching(/^about {6}the user Spam Two \(spammer2\)$/),
      expect.stringMatching(/^waiting {4}since /),
    ]);
    expect(lines[6]).toMatch(/^ {2}reporter01 · spam · now: this account posts/);
    expect(lines.length).toBeLessThanOrEqual(23);
    expect(lines.at(-1)).toMatch(/^⏎\/esc back/);
  });
});
