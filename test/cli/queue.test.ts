import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKeyFor, createPage, createPageConfiguration, createUserWithKey } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { useServer, type Credentials } from '../helpers/server.js';
import { Terminal } from '../helpers/tmux.js';
import { envFor, freshHome, tsvRows } from './support.js';

/** `agora queue`: the list when piped, and the live full-screen queue at a real terminal (tmux). */

const server = useServer();
let owner: { user: { id: string; nickname: string }; creds: Credentials };
let pageId: string;

beforeAll(async () => {
  const config = await createPageConfiguration(server);
  owner = await createUserWithKey(server, { nickname: `owner${Date.now() % 100000}` });
  pageId = (await createPage(server, { user_id: owner.user.id, page_configuration_id: config.id, privacy: 'private', name: 'Book Circle' })).id;
});

/** A user asks to join, from another process: the real `agora` binary with their own key. */
async function askFromAnotherProcess(nickname: string): Promise<{ id: string; userId: string }> {
  const { user, creds } = await createUserWithKey(server, { nickname });
  const result = await runCli(['access-requests', 'create', '--page-id', pageId, '--json'], { home: server.dir, env: envFor(server, creds) });
  expect(result.code, result.stderr).toBe(0);
  return { id: JSON.parse(result.stdout).id, userId: user.id };
}

const waitingIds = async () =>
  ((await call(server, 'GET', '/moderation_queue', { as: owner.creds })).body.items as { id: string }[]).map((i) => i.id);

describe('without a terminal', () => {
  it('prints the queue as tab-separated rows, or the API JSON with --json, and exits', async () => {
    const asked = await askFromAnotherProcess(`piped${Date.now() % 100000}`);
    const env = envFor(server, owner.creds);
    const tsv = await runCli(['queue'], { home: server.dir, env });
    expect(tsv.code, tsv.stderr).toBe(0);
    expect(tsvRows(tsv.stdout)).toContainEqual(['page_access_request', asked.id, 'Book Circle', expect.stringMatching(/^piped/), expect.any(String), '', '', '']);
    const json = await runCli(['queue', '--json'], { home: server.dir, env });
    expect(JSON.parse(json.stdout)).toEqual((await call(server, 'GET', '/moderation_queue', { as: owner.creds })).body);
    await call(server, 'PUT', `/page_access_requests/${asked.id}/refuse`, { as: owner.creds });
    // The screen's keys are in its help, not only in the README.
    const help = await runCli(['queue', '--help'], { home: server.dir, env });
    expect(help.stdout).toMatch(/Keys \(on a terminal\):\n {2}↑↓ or j\/k {2}move +⏎ {2}details\n {2}a {2}accept a request or invite +r {2}refuse it\n/);
    // Every line of it fits 80 columns, so that no terminal cuts a key from what it does.
    for (const line of help.stdout.slice(help.stdout.indexOf('Keys')).split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
  });
});

describe('at a terminal of 60 columns', () => {
  let term: Terminal;
  beforeAll(async () => {
    // A fresh look only every 10 minutes: whatever shows up within seconds came through the live stream.
    const env = { ...envFor(server, owner.creds), NO_COLOR: '1', AGORA_QUEUE_REFRESH_MS: '600000' };
    term = new Terminal(freshHome(server), env, { agora: ['queue'], width: 60, height: 24 });
  });
  afterAll(async () => term?.close());

  it('shows a new request within 2 s without a key press, accepts with a, refuses with r then y, quits with q', async () => {
    await term.waitFor(/● live/, 10_000);
    const first = await askFromAnotherProcess(`ada${Date.now() % 100000}`);
    const nick1 = (await call(server, 'GET', `/users/${first.userId}`)).body.nickname as string;
    await term.waitFor(new RegExp(`› request +Book Circle +${nick1}`), 2000);

    await term.keys('a');
    await term.waitFor(new RegExp(`accepted ${nick1}'s request to join Book Circle`));
    const accepted = await call(server, 'GET', `/page_access_requests?user_id=${first.userId}`, { as: owner.creds });
    expect(accepted.body.items).toMatchObject([{ id: first.id, state: 'accepted' }]);

    const second = await askFromAnotherProcess(`bob${Date.now() % 100000}`);
    const nick2 = (await call(server, 'GET', `/users/${second.userId}`)).body.nickname as string;
    await term.waitFor(new RegExp(`› request +Book Circle +${nick2}`), 2000);
    await term.keys('Enter');
    await term.waitFor(new RegExp(`who +Test User \\w+ \\(${nick2}\\)`));
    await term.keys('Escape');
    await term.keys('r');
    await term.waitFor(new RegExp(`Refuse ${nick2}'s request to join Book Circle\\? \\(y/N\\)`));
    expect(await waitingIds()).toContain(second.id);
    await term.keys('y');
    await term.waitFor(new RegExp(`refused ${nick2}'s request to join Book Circle`));
    expect(await waitingIds()).not.toContain(second.id);
    expect((await call(server, 'GET', `/page_access_requests?user_id=${second.userId}`, { as: owner.creds })).body.items).toEqual([]);

    // Readable at 60 columns: nothing wrapped (capture-pane -J joins wrapped lines), and NO_COLOR kept.
    const screen = term.screen(true);
    for (const line of screen.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(60);
    expect(screen).toMatch(/↑↓ move {2}a accept {2}r refuse {2}⏎ details {2}q quit/);
    expect(term.screen(true, { escapes: true })).not.toMatch(/\u001b\[(3[0-7]|9[0-7]|38;)/);

    term.keys('q');
    expect(await term.exitCode()).toBe(0);
  });
});

describe('an item someone else handled', () => {
  it('leaves the screen at the next look, without a key press', async () => {
    const adminCreds = await createKeyFor(server);
    const env = { ...envFor(server, adminCreds), AGORA_QUEUE_REFRESH_MS: '300' };
    const term = new Terminal(freshHome(server), env, { agora: ['queue', '--yes'], width: 80, height: 24 });
    try {
      const asked = await askFromAnotherProcess(`eve${Date.now() % 100000}`);
      const nick = (await call(server, 'GET', `/users/${asked.userId}`)).body.nickname as string;
      await term.waitFor(new RegExp(`${nick} +now`), 5000);
      await call(server, 'PUT', `/page_access_requests/${asked.id}/accept`, { as: owner.creds });
      const after = await term.waitFor(new RegExp(`^(?![\\s\\S]*${nick} +now)`), 5000);
      expect(after).toMatch(/agora queue · \d+ waiting/);
      await term.keys('q');
    } finally {
      term.close();
    }
  });
});

describe('keys typed together, and the selection', () => {
  /** Requests to a page of their own, first in the queue: their ids and the nicknames the rows show. */
  async function requests(name: string, count = 3) {
    // What earlier tests left waiting is refused first.
    const waiting = (await call(server, 'GET', '/moderation_queue', { as: owner.creds })).body.items as { id: string; kind: string }[];
    for (const item of waiting.filter((i) => i.kind === 'page_access_request'))
      expect((await call(server, 'PUT', `/page_access_requests/${item.id}/refuse`, { as: owner.creds })).status).toBeLessThan(300);
    const config = await createPageConfiguration(server);
    const page = await createPage(server, { user_id: owner.user.id, page_configuration_id: config.id, privacy: 'private', name });
    const nicknames = ['one', 'two', 'three', 'four'].slice(0, count).map((n) => `${n}${Date.now() % 100000}`);
    for (const nickname of nicknames) {
      const { user, creds } = await createUserWithKey(server, { nickname });
      expect((await call(server, 'POST', '/page_access_requests', { as: creds, body: { page_id: page.id, user_id: user.id } })).status).toBe(201);
    }
    const queued = (await call(server, 'GET', '/moderation_queue', { as: owner.creds })).body.items as { id: string; page: { id: string } }[];
    const ids = queued.filter((i) => i.page.id === page.id).map((i) => i.id);
    expect(queued.slice(0, count).map((i) => i.id)).toEqual(ids);
    return { ids, nicknames };
  }
  const queueIds = async () => ((await call(server, 'GET', '/moderation_queue', { as: owner.creds })).body.items as { id: string }[]).map((i) => i.id);
  /**
   * `agora queue` at a terminal of its own (a fresh look only every 10 minutes: what changes comes live), once it is
   * live and its selection is on the first request to `club` (from `first`, when given).
   */
  async function liveQueue(club: string, first = '', { yes = true, width = 80 } = {}): Promise<Terminal> {
    const env = { ...envFor(server, owner.creds), AGORA_QUEUE_REFRESH_MS: '600000' };
    const term = new Terminal(freshHome(server), env, { agora: yes ? ['queue', '--yes'] : ['queue'], width, height: 24 });
    try {
      await term.waitFor(/● live/, 10_000);
      await term.waitFor(new RegExp(`› request +${club}${first ? ` +${first}` : ''}`));
      return term;
    } catch (error) {
      term.close();
      throw error;
    }
  }

  for (const [keys, label] of [[['Down', 'Down', 'a'], '↓↓a'], [['j', 'j', 'a'], 'jja (ink hands letters over as one string)']] as const)
    it(`are taken one after the other: ${label} in one burst accepts the third request, not the second`, async () => {
      const { ids } = await requests(`Burst ${keys[0]}`);
      const term = await liveQueue(`Burst ${keys[0]}`);
      try {
        // One send-keys: tmux writes the keys to the terminal together, so they arrive in one read.
        term.keys(...keys);
        await term.waitFor(new RegExp(`accepted \\w+'s request to join Burst ${keys[0]}`));
        const left = await queueIds();
        expect(left).toEqual(expect.arrayContaining([ids[0]!, ids[1]!]));
        expect(left).not.toContain(ids[2]);
        term.keys('q');
      } finally {
        term.close();
      }
    });

  it('a settling key pressed before the last one is done waits its turn: a, j, a in one burst accept the first two', async () => {
    const { ids, nicknames } = await requests('Turns Club');
    const term = await liveQueue('Turns Club', nicknames[0]);
    try {
      term.keys('a', 'j', 'a');
      await term.waitFor(new RegExp(`accepted ${nicknames[1]}'s request to join Turns Club`));
      const left = await queueIds();
      expect(left).not.toContain(ids[0]);
      expect(left).not.toContain(ids[1]);
      expect(left).toContain(ids[2]);
      term.keys('q');
    } finally {
      term.close();
    }
  });

  it('q waits for the settles still on their way: a, j, a, q in one burst accept two requests, then exit 0', async () => {
    const { ids } = await requests('Quit Club');
    const term = await liveQueue('Quit Club');
    try {
      term.keys('a', 'j', 'a', 'q');
      expect(await term.exitCode(20_000)).toBe(0);
      // What they came to is said once the screen is gone.
      const after = term.screen(true);
      expect(after).toMatch(new RegExp(`accepted \\w+'s request to join Quit Club[\\s\\S]*accepted \\w+'s request to join Quit Club`));
      const left = await queueIds();
      expect(left).not.toContain(ids[0]);
      expect(left).not.toContain(ids[1]);
      expect(left).toContain(ids[2]);
    } finally {
      term.close();
    }
  });

  it('keys typed after the answer to a question, in the same burst, are dropped: r, y, j, a refuses one and accepts none', async () => {
    const { ids, nicknames } = await requests('Answer Club');
    const term = await liveQueue('Answer Club', nicknames[0], { yes: false });
    try {
      term.keys('r', 'y', 'j', 'a');
      await term.waitFor(new RegExp(`refused ${nicknames[0]}'s request to join Answer Club`));
      // Time for an accept the `a` would have sent.
      await new Promise((ok) => setTimeout(ok, 1500));
      expect(term.screen()).not.toMatch(/accepted/);
      const left = await queueIds();
      expect(left).not.toContain(ids[0]);
      expect(left).toEqual(expect.arrayContaining([ids[1]!, ids[2]!]));
      term.keys('q');
    } finally {
      term.close();
    }
  });

  it("a failure among settles typed together stays on the screen after the next one's success", async () => {
    const { ids, nicknames } = await requests('Fail Club');
    const term = await liveQueue('Fail Club', nicknames[0], { width: 200 });
    try {
      // Someone else refuses the first; this screen does not know yet.
      expect((await call(server, 'PUT', `/page_access_requests/${ids[0]}/refuse`, { as: owner.creds })).status).toBeLessThan(300);
      term.keys('a', 'j', 'a');
      await term.waitFor(new RegExp(`accepted ${nicknames[1]}'s request to join Fail Club; before it, ${nicknames[0]}'s request to join Fail Club: already handled elsewhere`));
      expect(await queueIds()).not.toContain(ids[1]);
      term.keys('q');
    } finally {
      term.close();
    }
  });

  it('a key and its ⏎ arriving together (a slow link) are keys, not a paste: j⏎ opens the second item', async () => {
    const { nicknames } = await requests('Burst Club');
    const term = await liveQueue('Burst Club', nicknames[0], { width: 100 });
    try {
      term.keys('-l', 'j\r');
      await term.waitFor(/⏎\/esc back/);
      expect(term.screen()).not.toMatch(/pasted text/);
      expect(term.screen()).toContain(nicknames[1]);
      term.keys('q');
    } finally {
      term.close();
    }
  });

  it('pasted text is never taken as keys: "ok done yes⏎" typed as one burst, and a bracketed paste of "aja", settle nothing', async () => {
    const { ids, nicknames } = await requests('Paste Club');
    const term = await liveQueue('Paste Club', nicknames[0], { width: 100 });
    try {
      term.keys('-l', 'ok done yes\r');
      await term.waitFor(/pasted text is not taken as keys here/);
      term.tmux('set-buffer', 'aja');
      // -p: bracketed, as a terminal marks a paste when the program asks for it.
      term.tmux('paste-buffer', '-p', '-t', 'main');
      await new Promise((ok) => setTimeout(ok, 1000));
      expect(term.screen()).not.toMatch(/accepted/);
      expect(term.screen()).toMatch(new RegExp(`› request +Paste Club +${nicknames[0]}`));
      expect(await queueIds()).toEqual(expect.arrayContaining(ids));
      term.keys('q');
    } finally {
      term.close();
    }
  });

  it('the selection stays on its item when another leaves the queue above it, after an action moved it', async () => {
    const { ids, nicknames } = await requests('Stay Club', 4);
    const env = { ...envFor(server, owner.creds), AGORA_QUEUE_REFRESH_MS: '300' };
    const term = new Terminal(freshHome(server), env, { agora: ['queue', '--yes'], width: 80, height: 24 });
    try {
      await term.waitFor(new RegExp(`› request +Stay Club +${nicknames[0]}`), 10_000);
      // Accepting the second moves the selection onto the third, in its place.
      term.keys('Down');
      await term.waitFor(new RegExp(`› request +Stay Club +${nicknames[1]}`));
      term.keys('a');
      await term.waitFor(new RegExp(`› request +Stay Club +${nicknames[2]}`));
      // Someone else settles the first (above the selection): the selection stays on the third, not the fourth.
      expect((await call(server, 'PUT', `/page_access_requests/${ids[0]}/refuse`, { as: owner.creds })).status).toBeLessThan(300);
      await term.waitFor(new RegExp(`^(?![\\s\\S]*${nicknames[0]})`), 5000);
      expect(term.screen()).toMatch(new RegExp(`› request +Stay Club +${nicknames[2]}`));
      term.keys('q');
    } finally {
      term.close();
    }
  });
});

describe('when calls fail', () => {
  /** A moderator of their own page, with a request waiting in it: `ask` adds another. */
  async function ownPage(name: string) {
    const { user, creds } = await createUserWithKey(server);
    const config = await createPageConfiguration(server);
    const page = await createPage(server, { user_id: user.id, page_configuration_id: config.id, privacy: 'private', name });
    const ask = async () => {
      const asker = await createUserWithKey(server);
      expect((await call(server, 'POST', '/page_access_requests', { as: asker.creds, body: { page_id: page.id, user_id: asker.user.id } })).status).toBe(201);
      return asker.user;
    };
    const asker = await ask();
    return { user, creds, ask, asker };
  }

  it("a refusal other than a settle elsewhere is said as the API says it (a suspended user's request)", async () => {
    const { creds, asker } = await ownPage('Refusing Club');
    const term = new Terminal(freshHome(server), envFor(server, creds), { agora: ['queue', '--yes'], width: 120, height: 24 });
    try {
      await term.waitFor(/agora queue · 1 waiting +● live/, 10_000);
      expect((await call(server, 'PUT', `/users/${asker.id}/suspension`, { body: { reason: 'spam' } })).status).toBe(200);
      await term.keys('a');
      // Named: the message stays while another item is selected.
      await term.waitFor(/\w+'s request to join Refusing Club: This user is suspended/, 10_000);
      expect(term.screen()).not.toMatch(/handled elsewhere/);
      await term.keys('q');
      expect(await term.exitCode()).toBe(0);
    } finally {
      term.close();
    }
    // A queue that reads the suspension marks the request, offers no accept, and says why without asking the API.
    const again = new Terminal(freshHome(server), envFor(server, creds), { agora: ['queue', '--yes'], width: 120, height: 24 });
    try {
      await again.waitFor(/agora queue · 1 waiting +● live/, 10_000);
      expect(again.screen()).toMatch(new RegExp(`${asker.nickname} \\(suspended\\)`));
      expect(again.screen()).toMatch(/r refuse/);
      expect(again.screen()).not.toMatch(/a accept/);
      await again.keys('a');
      await again.waitFor(/request to join Refusing Club: the user is suspended; r refuses/, 10_000);
      await again.keys('q');
      expect(await again.exitCode()).toBe(0);
    } finally {
      again.close();
    }
  });

  it('an action that could not be sent at all (the connection refused) says so, not that it may have gone through', async () => {
    const net = await import('node:net');
    const { creds } = await ownPage('Closed Club');
    // The queue reaches the server through a relay, which then stops: open connections cut, new ones refused.
    const sockets = new Set<import('node:net').Socket>();
    const relay = net.createServer((socket) => {
      const upstream = net.connect(Number(new URL(server.url).port), '127.0.0.1');
      for (const end of [socket, upstream]) {
        sockets.add(end);
        end.on('error', () => {});
        end.on('close', () => (socket.destroy(), upstream.destroy()));
      }
      socket.pipe(upstream).pipe(socket);
    });
    await new Promise<void>((ok) => relay.listen(0, '127.0.0.1', ok));
    const env = { ...envFor(server, creds), AGORA_URL: `http://127.0.0.1:${(relay.address() as { port: number }).port}` };
    const term = new Terminal(freshHome(server), env, { agora: ['queue', '--yes'], width: 120, height: 24 });
    try {
      await term.waitFor(/agora queue · 1 waiting +● live/, 10_000);
      const closed = new Promise<void>((ok) => relay.close(() => ok()));
      for (const socket of sockets) socket.destroy();
      await closed;
      await term.waitFor(/○ offline/, 10_000);
      await term.keys('a');
      await term.waitFor(/Cannot reach the agora server at \S+ \(ECONNREFUSED\)/, 10_000);
      expect(term.screen()).not.toMatch(/not known whether it went through/);
      await term.keys('q');
      expect(await term.exitCode()).toBe(0);
    } finally {
      term.close();
      relay.close();
    }
  });

  it('an action the server never answers says it is not known whether it went through, until its item leaves the queue', async () => {
    const { creds } = await ownPage('Frozen Club');
    const env = { ...envFor(server, creds), AGORA_QUEUE_REFRESH_MS: '1000', AGORA_TIMEOUT: '1' };
    const term = new Terminal(freshHome(server), env, { agora: ['queue', '--yes'], width: 100, height: 24 });
    try {
      await term.waitFor(/agora queue · 1 waiting +● live/, 10_000);
      // The server stopped (not gone): the accept is sent, and no answer comes.
      server.process.kill('SIGSTOP');
      try {
        await term.keys('a');
        await term.waitFor(/accepted \w+'s request to join Frozen Club\? no answer: not known whether it went through/, 10_000);
        // Looks that fail meanwhile do not replace it: the header says the list is not current.
        await term.waitFor(/○ not current/, 5000);
        expect(term.screen()).toMatch(/not known whether it went through/);
      } finally {
        server.process.kill('SIGCONT');
      }
      // The server takes the accept it was sent; the next look finds the request gone and says so.
      await term.waitFor(/accepted \w+'s request to join Frozen Club: it has left the queue since/, 10_000);
      await term.keys('q');
      expect(await term.exitCode()).toBe(0);
    } finally {
      term.close();
    }
  });

  it('the header says the list is not current while its calls fail, though the stream is still up, and offline once it ends', async () => {
    const { user, creds, ask } = await ownPage('Header Club');
    const env = { ...envFor(server, creds), AGORA_QUEUE_REFRESH_MS: '500' };
    const term = new Terminal(freshHome(server), env, { agora: ['queue'], width: 80, height: 24 });
    try {
      await term.waitFor(/agora queue · 1 waiting +● live/, 10_000);
      // The key revoked: the stream it opened stays until its next delivery or keep-alive (15 s on); every call with
      // it is refused.
      const key = (await call(server, 'GET', `/api_keys?user_id=${user.id}`)).body.items[0] as { id: string };
      expect((await call(server, 'DELETE', `/api_keys/${key.id}`)).status).toBe(204);
      // The next timed look is refused.
      await term.waitFor(/agora queue · 1 waiting +○ not current/, 5000);
      // A new request would come by the stream: the server ends it instead, and the screen says so.
      await ask();
      await term.waitFor(/agora queue · 1 waiting +○ offline/, 5000);
      await term.keys('q');
      expect(await term.exitCode()).toBe(0);
    } finally {
      term.close();
    }
  });
});

describe('a queue longer than the screen', () => {
  it('is walked a screen at a time with PgDn/PgUp, and to either end with End/Home and G/g', async () => {
    const config = await createPageConfiguration(server);
    const page = await createPage(server, { user_id: owner.user.id, page_configuration_id: config.id, privacy: 'private', name: 'Long Club' });
    const tag = Date.now() % 100000;
    const nicknames = Array.from({ length: 12 }, (_, i) => `long${String(i).padStart(2, '0')}x${tag}`);
    for (const nickname of nicknames) {
      const { user, creds } = await createUserWithKey(server, { nickname });
      expect((await call(server, 'POST', '/page_access_requests', { as: creds, body: { page_id: page.id, user_id: user.id } })).status).toBe(201);
    }
    const env = { ...envFor(server, owner.creds), NO_COLOR: '1', AGORA_QUEUE_REFRESH_MS: '600000' };
    // 12 rows: 7 items in sight.
    const term = new Terminal(freshHome(server), env, { agora: ['queue'], width: 80, height: 12 });
    try {
      await term.waitFor(/● live/, 10_000);
      term.keys('End');
      await term.waitFor(new RegExp(`› request +Long Club +${nicknames[11]}`));
      // The first item is selected: the row under the header.
      term.keys('Home');
      await term.waitFor(/KIND[^\n]*\n› /);
      term.keys('G');
      await term.waitFor(new RegExp(`› request +Long Club +${nicknames[11]}`));
      term.keys('PPage');
      await term.waitFor(new RegExp(`› request +Long Club +${nicknames[5]}`));
      term.keys('NPage');
      await term.waitFor(new RegExp(`› request +Long Club +${nicknames[11]}`));
      term.keys('g');
      await term.waitFor(/KIND[^\n]*\n› /);
      term.keys('q');
      expect(await term.exitCode()).toBe(0);
    } finally {
      term.close();
    }
    for (const item of (await call(server, 'GET', '/moderation_queue?per_page=100', { as: owner.creds })).body.items as { id: string; kind: string; page: { id: string } }[])
      if (item.kind === 'page_access_request' && item.page.id === page.id) await call(server, 'PUT', `/page_access_requests/${item.id}/refuse`, { as: owner.creds });
  });
});
