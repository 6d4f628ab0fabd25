import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUserWithKey } from '../helpers/api.js';
import { useServer, type Credentials } from '../helpers/server.js';
import { Terminal } from '../helpers/tmux.js';
import { envFor, freshHome } from './support.js';

/**
 * `agora queue` at a real terminal (tmux), `r`: an invite refused after its question, and a request whose asker
 * got in by their invite meanwhile, whose accept the API refuses (409 already_member): the screen says `r` refuses
 * it, and it does.
 */
const server = useServer();
let owner: { user: { id: string; nickname: string }; creds: Credentials };
let pageId: string;
let term: Terminal;

beforeAll(async () => {
  const config = await createPageConfiguration(server);
  owner = await createUserWithKey(server, { nickname: `owner${Date.now() % 100000}` });
  pageId = (await createPage(server, { user_id: owner.user.id, page_configuration_id: config.id, privacy: 'private', name: 'Twice Club' })).id;
});
afterAll(() => term?.close());

const asOwner = (method: string, path: string, body?: unknown) => call(server, method, path, { as: owner.creds, body });

async function invite(userId: string): Promise<string> {
  const sent = await asOwner('POST', '/invites', { target_type: 'Page', target_id: pageId, user_id: owner.user.id, user_target_ids: [userId] });
  expect(sent.body.errors, JSON.stringify(sent.body)).toEqual([]);
  return sent.body.success[0].id;
}
const queueIds = async () => ((await asOwner('GET', '/moderation_queue')).body.items as { id: string }[]).map((i) => i.id);

describe('r at a terminal', () => {
  it("refuses an invite, and a request the API will not accept (its asker got in by an invite) after saying r refuses it", async () => {
    // Oldest first: ada's request, ada's invite, bob's invite.
    const ada = await createUserWithKey(server, { nickname: `ada${Date.now() % 100000}` });
    const bob = await createUserWithKey(server, { nickname: `bob${Date.now() % 100000}` });
    const asked = await call(server, 'POST', '/page_access_requests', { as: ada.creds, body: { page_id: pageId, user_id: ada.user.id } });
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    const [adaInvite, bobInvite] = [await invite(ada.user.id), await invite(bob.user.id)];
    expect(await queueIds()).toEqual([asked.body.id, adaInvite, bobInvite]);
    const [a, b] = [ada.user.nickname, bob.user.nickname];

    // A fresh look only every 10 minutes: what changes on the screen came from its own keys, or live.
    const env = { ...envFor(server, owner.creds), AGORA_QUEUE_REFRESH_MS: '600000' };
    term = new Terminal(freshHome(server), env, { agora: ['queue'], width: 120, height: 24 });
    await term.waitFor(/agora queue · 3 waiting +● live/, 10_000);
    await term.waitFor(new RegExp(`› request +Twice Club +${a}`));

    // Ada's invite accepted from the queue: she is in the page, her request still waiting.
    term.keys('j');
    await term.waitFor(new RegExp(`› invite +Twice Club +${a}`));
    term.keys('a');
    await term.waitFor(new RegExp(`accepted the invite of ${a} to Twice Club`));
    expect(await queueIds()).toEqual([asked.body.id, bobInvite]);

    // Her request can no longer be accepted: the screen says what is left to do with it, and does it.
    term.keys('k');
    await term.waitFor(new RegExp(`› request +Twice Club +${a}`));
    term.keys('a');
    await term.waitFor(new RegExp(`${a}'s request to join Twice Club: This user is already in this page; r refuses`));
    expect(term.screen()).not.toMatch(/handled elsewhere/);
    expect(await queueIds()).toContain(asked.body.id);
    term.keys('r');
    await term.waitFor(new RegExp(`Refuse ${a}'s request to join Twice Club\\? \\(y/N\\)`));
    term.keys('y');
    await term.waitFor(new RegExp(`refused ${a}'s request to join Twice Club`));
    // Refused, a request is deleted; she stays a member through her invite.
    expect(await queueIds()).toEqual([bobInvite]);
    expect((await asOwner('GET', `/page_access_requests?user_id=${ada.user.id}`)).body.items).toEqual([]);
    const follows = await asOwner('GET', `/follows?followable_type=Page&followable_id=${pageId}&user_id=${ada.user.id}`);
    expect(follows.body.total_items).toBe(1);

    // Bob's invite: a "no" at the question leaves it, a "y" refuses it (kept, refused).
    await term.waitFor(new RegExp(`› invite +Twice Club +${b}`));
    term.keys('r');
    await term.waitFor(new RegExp(`Refuse the invite of ${b} to Twice Club\\? \\(y/N\\)`));
    term.keys('n');
    await term.waitFor(/nothing refused/);
    expect(await queueIds()).toEqual([bobInvite]);
    term.keys('r');
    await term.waitFor(new RegExp(`Refuse the invite of ${b} to Twice Club\\? \\(y/N\\)`));
    term.keys('y');
    await term.waitFor(new RegExp(`refused the invite of ${b} to Twice Club`));
    await term.waitFor(/agora queue · 0 waiting/);
    expect(await queueIds()).toEqual([]);
    const refused = await asOwner('GET', `/invites?user_target_id=${bob.user.id}`);
    expect(refused.body.items).toMatchObject([{ id: bobInvite, state: 'refused', is_validate: false, is_accepted: false }]);
    const bobFollows = await asOwner('GET', `/follows?followable_type=Page&followable_id=${pageId}&user_id=${bob.user.id}`);
    expect(bobFollows.body.total_items).toBe(0);

    term.keys('q');
    expect(await term.exitCode()).toBe(0);
  });
});
