import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKeyFor, createPage, createPageConfiguration, createUserWithKey } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { useServer, type Credentials } from '../helpers/server.js';
import { Terminal } from '../helpers/tmux.js';
import { envFor, freshHome, tsvRows } from './support.js';

/** `agora queue` and open reports: listed when piped; at a real terminal, live, with d remove, s suspend, x dismiss. */

const server = useServer();
type Who = { user: { id: string; nickname: string }; creds: Credentials };
let owner: Who;
let spammer: Who;
let pageId: string;
const tag = () => String(Date.now() % 100000);

beforeAll(async () => {
  const config = await createPageConfiguration(server);
  owner = await createUserWithKey(server, { nickname: `keeper${tag()}` });
  spammer = await createUserWithKey(server, { nickname: `spammer${tag()}` });
  pageId = (await createPage(server, { user_id: owner.user.id, page_configuration_id: config.id, privacy: 'private', name: 'Garden Club' })).id;
  await join(spammer);
});

async function join(who: Who) {
  const res = await call(server, 'POST', '/follows', { body: { followable_type: 'Page', followable_id: pageId, user_id: who.user.id } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}
async function member(name: string): Promise<Who> {
  const who = await createUserWithKey(server, { nickname: `${name}${tag()}` });
  await join(who);
  return who;
}
async function post(content: string): Promise<string> {
  const res = await call(server, 'POST', '/statuses', { as: spammer.creds, body: { user_id: spammer.user.id, page_id: pageId, content } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}
/** A report from another process: the real `agora` binary with the reporter's own key. */
async function reportFromAnotherProcess(who: Who, statusId: string, reason: string, comment?: string): Promise<string> {
  const args = ['reports', 'create', '--target-type', 'Status', '--target-id', statusId, '--reason', reason, '--json'];
  const result = await runCli(comment ? [...args, '--comment', comment] : args, { home: server.dir, env: envFor(server, who.creds) });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout).id;
}
const reportState = async (id: string) => (await call(server, 'GET', `/reports/${id}`)).body.state as string;

describe('without a terminal', () => {
  it('lists an open report with its first reporter, how many reports the target has and what is reported', async () => {
    const reporter = await member('piper');
    const status = await post('cheap watches at example.com');
    const id = await reportFromAnotherProcess(reporter, status, 'spam');
    const tsv = await runCli(['queue'], { home: server.dir, env: envFor(server, owner.creds) });
    expect(tsv.code, tsv.stderr).toBe(0);
    expect(tsvRows(tsv.stdout)).toContainEqual([
      'report', id, 'Garden Club', reporter.user.nickname, expect.any(String), '1',
      `spam: ${spammer.user.nickname}'s status "cheap watches at example.com" in Garden Club`,
      '',
    ]);
    expect((await call(server, 'PUT', `/reports/${id}/dismiss`, { as: owner.creds })).status).toBe(200);
  });
});

describe("at a terminal, the page's creator", () => {
  let term: Terminal;
  beforeAll(async () => {
    // A fresh look only every 10 minutes: whatever shows up within seconds came through the live stream.
    const env = { ...envFor(server, owner.creds), NO_COLOR: '1', AGORA_QUEUE_REFRESH_MS: '600000' };
    term = new Terminal(freshHome(server), env, { agora: ['queue'], width: 80, height: 24 });
  });
  afterAll(async () => term?.close());

  it('sees a report arrive live, reads every report of the target in the details, removes the content with d then y, dismisses with x then y', async () => {
    await term.waitFor(/● live/, 10_000);
    const [ann, ben] = [await member('ann'), await member('ben')];
    const status = await post('cheap   watches at example.com, today only');
    const first = await reportFromAnotherProcess(ann, status, 'spam', 'links to a shop');
    const author = spammer.user.nickname;
    await term.waitFor(new RegExp(`› report +Garden Club +${author}: cheap watches`), 2000);
    // Not an Admin (GET /me says so): s is not offered, and pressing it says who suspends, before any reason is typed.
    expect(term.screen(true)).toMatch(/↑↓ move {2}d remove {2}x dismiss {2}⏎ details {2}q quit/);
    await term.keys('s');
    await term.waitFor(/only Admins suspend: d removes the content, x dismisses/);

    // A long comment reads whole in the details (wrapped), not cut at the screen's edge.
    const long = `${'this account posts the same advert in every page of the community, '.repeat(2)}final-word`;
    const second = await call(server, 'POST', '/reports', { as: ben.creds, body: { user_id: ben.user.id, target_type: 'Status', target_id: status, reason: 'abuse', comment: long } });
    expect(second.status).toBe(201);
    await term.waitFor(new RegExp(`› report ×2 +Garden Club +${author}`), 2000);

    await term.keys('Enter');
    const details = await term.waitFor(new RegExp(`${ben.user.nickname} · abuse`));
    expect(details).toMatch(/kind +report \(2 open\)/);
    expect(details).toMatch(new RegExp(`about +a status by Test User \\w+ \\(${author}\\)`));
    expect(details).toMatch(/text +cheap watches at example\.com, today only/);
    expect(details).toMatch(new RegExp(`${ann.user.nickname} · spam · now: links to a shop`));
    expect(details).toContain('final-word');
    await term.keys('Escape');

    await term.keys('a');
    await term.waitFor(/a and r settle requests and invites; d, s and x settle reports/);
    await term.keys('d');
    await term.waitFor(new RegExp(`Remove ${author}'s status "cheap watches at exampl…" in Garden Club\\? \\(y/N\\)`));
    expect(await reportState(first)).toBe('open');
    await term.keys('y');
    await term.waitFor(new RegExp(`removed ${author}'s status "cheap watches at exampl…" in Garden Club`));
    expect(await reportState(first)).toBe('resolved');
    expect(await reportState(second.body.id)).toBe('resolved');
    expect((await call(server, 'GET', `/statuses/${status}`, { as: ann.creds })).status).toBe(404);

    const other = await post('buy followers');
    const third = await reportFromAnotherProcess(ann, other, 'off_topic');
    await term.waitFor(new RegExp(`› report +Garden Club +${author}: buy followers`), 2000);
    // Only Admins suspend: s tells the page's creator so, asking no reason.
    await term.keys('s');
    await term.waitFor(/only Admins suspend: d removes the content, x dismisses/);
    expect(term.screen(true)).not.toMatch(/reason \[/);
    await term.waitFor(/↑↓ move {2}d remove {2}x dismiss {2}⏎ details {2}q quit/);
    expect(await reportState(third)).toBe('open');
    // Another message first, so that the next one is the second s's own: no question, the same refusal.
    await term.keys('d');
    await term.waitFor(/Remove .*\? \(y\/N\)/);
    await term.keys('n');
    await term.waitFor(/nothing removed/);
    await term.keys('s');
    await term.waitFor(/only Admins suspend/);
    expect(term.screen(true)).not.toMatch(/reason \[/);
    await term.keys('x');
    await term.waitFor(new RegExp(`Dismiss the report on ${author}'s status "buy followers"\\? \\(y/N\\)`));
    await term.keys('n');
    await term.waitFor(/nothing dismissed/);
    expect(await reportState(third)).toBe('open');
    await term.keys('x');
    await term.waitFor(/Dismiss the report on .*\? \(y\/N\)/);
    await term.keys('y');
    await term.waitFor(new RegExp(`dismissed the report on ${author}'s status "buy followers"`));
    expect(await reportState(third)).toBe('dismissed');
    expect((await call(server, 'GET', `/statuses/${other}`, { as: ann.creds })).status).toBe(200);
    await term.waitFor(/Nothing waiting/);

    term.keys('q');
    expect(await term.exitCode()).toBe(0);
  });
});

describe('at a terminal, an Admin', () => {
  /** An Admin's live queue, holding every open report: only the test's own, whatever an earlier test left. */
  async function adminQueue(width = 100): Promise<Terminal> {
    const open = await call(server, 'GET', '/reports?state=open&per_page=100');
    for (const r of open.body.items as { id: string }[]) await call(server, 'PUT', `/reports/${r.id}/dismiss`);
    const env = { ...envFor(server, await createKeyFor(server)), NO_COLOR: '1', AGORA_QUEUE_REFRESH_MS: '600000' };
    const term = new Terminal(freshHome(server), env, { agora: ['queue'], width, height: 24 });
    try {
      await term.waitFor(/● live/, 10_000);
      return term;
    } catch (error) {
      term.close();
      throw error;
    }
  }

  it('keeps a question naming wide characters (CJK, emoji) on one line: the screen is not pushed up', async () => {
    const status = await post('日本語のスパムです😀😀全角のテキストがここに続きます😀ずっと続きます');
    // One of two neighbouring widths cuts the question inside a wide character, whatever the author's name.
    for (const width of [50, 51]) {
      const term = await adminQueue(width);
      try {
        const id = await reportFromAnotherProcess(await member('gil'), status, 'spam');
        // Its first words, however long the author's name (the column parts it from the next).
        await term.waitFor(/› report .*日本/, 2000);
        await term.keys('d');
        const screen = await term.waitFor(/Remove .*日本語/);
        expect(screen.split('\n')[0], screen).toMatch(/^agora queue · 1 waiting/);
        await term.keys('n');
        // The answer read before q is sent: read in one run with it, a key after an answer is dropped (by design).
        await term.waitFor(/nothing removed/);
        expect(await reportState(id)).toBe('open');
        await term.keys('q');
        expect(await term.exitCode()).toBe(0);
      } finally {
        term.close();
      }
    }
  });

  it('suspends the author with s, giving a reason, and leaves the queue empty', async () => {
    const term = await adminQueue();
    try {
      const cleo = await member('cleo');
      const status = await post('follow me for free money');
      const id = await reportFromAnotherProcess(cleo, status, 'spam');
      await term.waitFor(new RegExp(`› report +Garden Club +${spammer.user.nickname}: follow me`), 2000);
      await term.keys('s');
      await term.waitFor(new RegExp(`Suspend ${spammer.user.nickname}\\?\\s*\nreason \\[reported for spam\\]:`));
      await term.keys('Escape');
      await term.waitFor(/nobody suspended/);
      await term.keys('s');
      await term.waitFor(/reason \[reported for spam\]:/);
      // Pasted over two lines: the line break is a space, and nothing is sent until Enter.
      term.keys('-l', 'Spam\rafter a warning');
      await term.waitFor(/reason \[reported for spam\]: Spam after a warning█/);
      // Typed in one burst with its Enter (pasted, or typed fast): ink hands the run over as one string.
      term.keys('-l', ', après tout\r');
      await term.waitFor(new RegExp(`suspended ${spammer.user.nickname}; the status stays, hidden while the suspension lasts`));
      expect(await reportState(id)).toBe('resolved');
      const user = await call(server, 'GET', `/users/${spammer.user.id}`);
      expect(user.body.suspension).toMatchObject({ reason: 'Spam after a warning, après tout', until: null });
      await term.keys('q');
      expect(await term.exitCode()).toBe(0);
    } finally {
      term.close();
      await call(server, 'DELETE', `/users/${spammer.user.id}/suspension`);
    }
  });

  it('is offered only what applies to a reported user: s suspends, x dismisses, no d (a user cannot be removed)', async () => {
    const term = await adminQueue();
    try {
      const dora = await member('dora');
      const made = await runCli(['reports', 'create', '--target-type', 'User', '--target-id', spammer.user.nickname, '--reason', 'abuse'], {
        home: server.dir,
        env: envFor(server, dora.creds),
      });
      expect(made.code, made.stderr).toBe(0);
      await term.waitFor(new RegExp(`› report .*${spammer.user.nickname}`), 2000);
      await term.waitFor(/↑↓ move {2}s suspend {2}x dismiss {2}⏎ details {2}q quit/);
      expect(term.screen(true)).not.toMatch(/d remove/);
      await term.keys('q');
      expect(await term.exitCode()).toBe(0);
    } finally {
      term.close();
    }
  });
  it('sees who is suspended now: beside a reported user and beside content, and in the details until when and why', async () => {
    const term = await adminQueue();
    const until = '2030-06-01T00:00:00.000Z';
    try {
      const erin = await member('erin');
      const status = await post('still selling watches');
      await reportFromAnotherProcess(erin, status, 'spam');
      const onUser = await call(server, 'POST', '/reports', { as: erin.creds, body: { user_id: erin.user.id, target_type: 'User', target_id: spammer.user.id, reason: 'abuse' } });
      expect(onUser.status, JSON.stringify(onUser.body)).toBe(201);
      const author = spammer.user.nickname;
      await term.waitFor(new RegExp(`report +- +user ${author}(?! \\()`), 2000);
      expect(term.screen(true)).toMatch(new RegExp(`${author}: still selling`));
      expect((await call(server, 'PUT', `/users/${spammer.user.id}/suspension`, { body: { reason: 'repeat\u001b[2J spam', until } })).status).toBe(200);
      // The suspension is told to its user, not to the moderator: the next report brings the next look.
      const fred = await member('fred');
      const again = await call(server, 'POST', '/reports', { as: fred.creds, body: { user_id: fred.user.id, target_type: 'User', target_id: spammer.user.id, reason: 'spam' } });
      expect(again.status, JSON.stringify(again.body)).toBe(201);
      await term.waitFor(new RegExp(`report ×2 +- +user ${author} \\(suspended\\)`), 2000);
      // The page's column as wide as its names need: what is reported is shown whole.
      expect(term.screen(true)).toMatch(new RegExp(`${author} \\(suspended\\): still selling watches`));
      await term.keys('j');
      await term.keys('Enter');
      const details = await term.waitFor(/suspended +until 2030/);
      // Why, as every text from the server: its control characters shown, not acted on.
      expect(details).toMatch(/suspended +until 2030-06-01T00:00:00\.000Z: repeat␛\[2J spam/);
      expect(details).toMatch(new RegExp(`about +the user .*\\(${author}\\)`));
      await term.keys('Escape');
      // Suspending them again replaces the suspension in force: the question names it.
      await term.keys('s');
      await term.waitFor(new RegExp(`${author} is suspended until 2030-06-01T00:00:00\\.000Z \\("repeat␛\\[2J spam"\\): replace it\\?`));
      // Longer than the line, the question stands above the reason, which stays in sight as it is typed.
      term.keys('-l', 'a second warning');
      await term.waitFor(/\nreason \[reported for abuse\]: a second warning█/);
      await term.keys('Escape');
      await term.waitFor(/nobody suspended/);
      // Piped, the same: until when, in a column of its own.
      const piped = await runCli(['queue', '--header'], { home: server.dir, env: envFor(server, server.admin) });
      const [header, ...rows] = tsvRows(piped.stdout);
      expect(header!.at(-1)).toBe('suspended');
      expect(rows.filter((r) => r[0] === 'report' && r.at(-2)!.includes(`the user ${author}`)).map((r) => r.at(-1))).toEqual([`until ${until}`]);
      await term.keys('q');
      expect(await term.exitCode()).toBe(0);
    } finally {
      term.close();
      await call(server, 'DELETE', `/users/${spammer.user.id}/suspension`);
    }
  });
});
