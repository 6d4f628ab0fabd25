import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { useApp } from '../helpers/app.js';
import type { Credentials } from '../helpers/server.js';
import { onPostgres, withClient } from '../helpers/store-target.js';

/**
 * Moderation acts at once (src/domain/README.md, "Moderation takes turns"): removals, reports, their settling and
 * suspensions share kept counts, the audit log and notification counters. On PostgreSQL two of them at once, even on
 * different content, deadlocked almost every time: a second lost, then the loser run again (a `rollback` seen), and
 * a burst of them answered 500 once the retries ran out. Each pair here must pass without a transaction run again.
 */
const statements: string[] = [];
const t = useApp({ storeOptions: { onQuery: (sql) => void statements.push(sql) }, webhooks: { concurrency: 0 } });
type Who = { user: { id: string }; creds: Credentials };

async function created(res: Promise<{ status: number; body: { id: string } }>): Promise<string> {
  const { status, body } = await res;
  expect(status, JSON.stringify(body)).toBe(201);
  return body.id;
}
const post = (who: Who) => created(t.call('POST', '/statuses', { as: who.creds, body: { user_id: who.user.id, content: 'something to report' } }));
const report = (who: Who, target_type: 'Status' | 'Comment', target_id: string) =>
  t.call('POST', '/reports', { as: who.creds, body: { user_id: who.user.id, target_type, target_id, reason: 'spam' } });
const resolve = (id: string, action = 'remove') => t.call('PUT', `/reports/${id}/resolve`, { body: { action } });

/** Runs the requests at once; answers their statuses, and how many transactions were rolled back meanwhile. */
async function atOnce(...requests: (() => Promise<{ status: number; body: unknown }>)[]) {
  statements.length = 0;
  const answers = await Promise.all(requests.map((r) => r()));
  const rolledBack = statements.filter((s) => s === 'rollback').length;
  return { statuses: answers.map((a) => a.status), bodies: answers.map((a) => JSON.stringify(a.body)), rolledBack };
}

/**
 * PostgreSQL: moderation's turn taken by a transaction of the store's own (another pooled connection), held until
 * `release`; `pid`: its backend. SQLite: none (its one writer runs transactions in turn in this process).
 */
async function holdModerationTurn() {
  if (!onPostgres) return undefined;
  let letGo!: () => void;
  const released = new Promise<void>((go) => (letGo = go));
  let done!: Promise<void>;
  const pid = await new Promise<number>((taken, failed) => {
    done = t.store.transaction(async (tx) => {
      await tx.takeTurns('moderation');
      taken((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx.db)).rows[0]!.pid);
      await released;
    });
    done.catch(failed);
  });
  return {
    pid,
    release: () => {
      letGo();
      return done;
    },
  };
}

/** `answer`, or 'waited' if it is not there in 10 s: a bound for a request stuck behind a held turn, not a speed. */
async function unlessItWaits<T>(answer: Promise<T>): Promise<T | 'waited'> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<'waited'>((answered) => (timer = setTimeout(() => answered('waited'), 10_000)));
  return Promise.race([answer, waited]).finally(() => clearTimeout(timer));
}

/** How many PostgreSQL backends wait for a lock `pid` holds. */
const waitingOn = (pid: number) =>
  withClient(async (c) => (await c.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [pid])).rows[0]!.n);

/** Two statuses by the author, each reported: the first to remove, the second's report to settle meanwhile. */
async function twoReported(author: Who, reporter: Who): Promise<{ s1: string; r2: string }> {
  const [s1, s2] = [await post(author), await post(author)];
  await created(report(reporter, 'Status', s1));
  return { s1, r2: await created(report(reporter, 'Status', s2)) };
}

describe('moderation acts at once', () => {
  it('a removal and the resolving of a report on other content, by an Admin or the author: both pass, neither run again', async () => {
    const [author, reporter] = [await t.member(), await t.member()];
    for (let round = 0; round < 8; round++) {
      const { s1, r2 } = await twoReported(author, reporter);
      const remover = round % 2 ? author.creds : undefined;
      const run = await atOnce(() => t.call('DELETE', `/statuses/${s1}`, { as: remover }), () => resolve(r2));
      expect(run.statuses, run.bodies.join()).toEqual([204, 200]);
      if (onPostgres) expect(run.rolledBack, 'transactions run again after a deadlock').toBe(0);
    }
  });

  it('a removal and a dismissal; a removal and the lifting of its author\'s suspension', async () => {
    const [author, reporter] = [await t.member(), await t.member()];
    for (let round = 0; round < 6; round++) {
      const { s1, r2 } = await twoReported(author, reporter);
      const dismissed = await atOnce(() => t.call('DELETE', `/statuses/${s1}`), () => t.call('PUT', `/reports/${r2}/dismiss`));
      expect(dismissed.statuses, dismissed.bodies.join()).toEqual([204, 200]);
      const s3 = await post(author);
      expect((await t.call('PUT', `/users/${author.user.id}/suspension`, { body: { reason: 'a pause' } })).status).toBe(200);
      const lifted = await atOnce(() => t.call('DELETE', `/statuses/${s3}`), () => t.call('DELETE', `/users/${author.user.id}/suspension`));
      expect(lifted.statuses, lifted.bodies.join()).toEqual([204, 200]);
      if (onPostgres) expect(dismissed.rolledBack + lifted.rolledBack, 'transactions run again after a deadlock').toBe(0);
    }
  });

  it('a report on a comment while its status is removed by resolving a report on it: the report comes first or finds it gone', async () => {
    const [author, reporter, other] = [await t.member(), await t.member(), await t.member()];
    for (let round = 0; round < 8; round++) {
      const status = await post(author);
      const comment = await created(t.call('POST', '/comments', { as: author.creds, body: { user_id: author.user.id, status_id: status, content: 'a reply' } }));
      const onStatus = await created(report(reporter, 'Status', status));
      const run = await atOnce(() => resolve(onStatus), () => report(other, 'Comment', comment));
      expect(run.statuses[0], run.bodies[0]).toBe(200);
      expect([201, 404], run.bodies[1]).toContain(run.statuses[1]);
      // A 404 is a rollback of its own; a deadlock would add one.
      if (onPostgres) expect(run.rolledBack, 'transactions run again after a deadlock').toBe(run.statuses[1] === 404 ? 1 : 0);
      // Filed first, the comment's report was settled by the removal: none is left open on what is gone.
      const open = await t.call('GET', `/reports?state=open&target_type=Comment&target_id=${comment}`);
      expect(open.body.total_items).toBe(0);
    }
  });

  it('a removal settling a report and the acceptance of an invite, both sent to a webhook: both pass, neither run again', async () => {
    const hook = await t.call('POST', '/webhooks', { body: { url: 'https://example.com/hook', events: ['report.updated', 'invite.updated'] } });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const config = (await t.call('POST', '/page_configurations', { body: { name: 'Clubs' } })).body.id;
    const [author, reporter, owner] = [await t.member(), await t.member(), await t.member()];
    let rolledBack = 0;
    for (let round = 0; round < 12; round++) {
      const status = await post(author);
      await created(report(reporter, 'Status', status));
      const page = await created(t.call('POST', '/pages', { as: owner.creds, body: { name: `Club ${round}`, page_configuration_id: config, privacy: 'private', user_id: owner.user.id } }));
      const invited = await t.member();
      const sent = await t.call('POST', '/invites', { as: owner.creds, body: { target_type: 'Page', target_id: page, user_id: owner.user.id, user_target_ids: [invited.user.id] } });
      const run = await atOnce(() => t.call('DELETE', `/statuses/${status}`), () => t.call('PUT', `/invites/${sent.body.success[0].id}/accept`, { as: owner.creds }));
      expect(run.statuses, run.bodies.join()).toEqual([204, 200]);
      rolledBack += run.rolledBack;
    }
    if (onPostgres) expect(rolledBack, 'transactions run again after a deadlock').toBe(0);
  });

  it('a refused removal, settling, acceptance or report is refused before it waits for moderation\'s turn', async () => {
    const [author, reporter, stranger] = [await t.member(), await t.member(), await t.member()];
    const status = await post(author);
    const reported = await created(report(reporter, 'Status', status));
    const config = (await t.call('POST', '/page_configurations', { body: { name: 'Turns' } })).body.id;
    const page = await created(t.call('POST', '/pages', { as: author.creds, body: { name: 'Turns Club', page_configuration_id: config, privacy: 'private', user_id: author.user.id } }));
    const asked = await created(t.call('POST', '/page_access_requests', { as: reporter.creds, body: { page_id: page, user_id: reporter.user.id } }));
    const turns = () => statements.filter((s) => s.includes('pg_advisory_xact_lock')).length;
    statements.length = 0;
    expect((await t.call('DELETE', `/statuses/${status}`, { as: stranger.creds })).status).toBe(403);
    expect((await t.call('PUT', `/reports/${reported}/dismiss`, { as: reporter.creds })).status).toBe(403);
    expect((await t.call('PUT', `/page_access_requests/${asked}/accept`, { as: stranger.creds })).status).toBe(403);
    expect((await report(stranger, 'Status', '0'.repeat(32))).status).toBe(404);
    expect((await t.call('POST', '/reports', { as: stranger.creds, body: { user_id: stranger.user.id, target_type: 'User', target_id: stranger.user.id, reason: 'spam' } })).status).toBe(422);
    expect(turns()).toBe(0);
    // Allowed, each waits its turn (PostgreSQL: SQLite's one writer takes turns without a statement).
    expect((await t.call('DELETE', `/statuses/${status}`, { as: author.creds })).status).toBe(204);
    expect(turns()).toBe(onPostgres ? 1 : 0);
  });

  it('a duplicate report, request to join or invite, or one of a member, is refused while moderation\'s turn is held; one allowed waits', async () => {
    const [owner, asker, invitee, newcomer] = [await t.member(), await t.member(), await t.member(), await t.member()];
    const status = await post(owner);
    const config = (await t.call('POST', '/page_configurations', { body: { name: 'Held' } })).body.id;
    const page = await created(t.call('POST', '/pages', { as: owner.creds, body: { name: 'Held Club', page_configuration_id: config, privacy: 'private', user_id: owner.user.id } }));
    const ask = (who: Who) => t.call('POST', '/page_access_requests', { as: who.creds, body: { page_id: page, user_id: who.user.id } });
    const invite = (...whom: Who[]) =>
      t.call('POST', '/invites', { as: owner.creds, body: { target_type: 'Page', target_id: page, user_id: owner.user.id, user_target_ids: whom.map((w) => w.user.id) } });
    await created(report(asker, 'Status', status));
    await created(ask(asker));
    expect((await invite(invitee)).body.success).toHaveLength(1);
    const held = await holdModerationTurn();
    try {
      // Answered while the turn is held: each refused by its row alone (the report, the request, the invite, the follow).
      const refusals = [report(asker, 'Status', status), ask(asker), ask(owner), invite(invitee, owner)];
      const [reported, asked, member, invited] = await Promise.all(refusals.map((answer) => unlessItWaits(answer)));
      expect(reported).toMatchObject({ status: 409, body: { error: { code: 'already_reported' } } });
      expect(asked).toMatchObject({ status: 409, body: { error: { code: 'access_request_pending' } } });
      expect(member).toMatchObject({ status: 409, body: { error: { code: 'already_member' } } });
      expect(invited).toMatchObject({ status: 200, body: { success: [], errors: [{ [invitee.user.id]: 'User already invite' }, { [owner.user.id]: 'User already member' }] } });
      // Allowed, each waits for the turn (PostgreSQL: SQLite's one writer takes turns within its process), then passes.
      const allowed = Promise.all([report(newcomer, 'Status', status), ask(newcomer), invite(newcomer)]);
      if (held) {
        await vi.waitFor(async () => expect(await waitingOn(held.pid)).toBe(3), { timeout: 10_000, interval: 20 });
        await held.release();
      }
      const [newReport, newRequest, newInvite] = await allowed;
      expect([newReport.status, newRequest.status, newInvite.body.success.length]).toEqual([201, 201, 1]);
    } finally {
      await held?.release();
    }
  });

  it('an act that waited for moderation\'s turn is dated when its turn came, not when it was asked', async () => {
    const [author, other] = [await t.member(), await t.member()];
    const status = await post(author);
    const held = await holdModerationTurn();
    try {
      const removal = t.call('DELETE', `/statuses/${status}`);
      const suspension = t.call('PUT', `/users/${other.user.id}/suspension`, { body: { reason: 'a pause' } });
      if (held) {
        await vi.waitFor(async () => expect(await waitingOn(held.pid)).toBe(2), { timeout: 10_000, interval: 20 });
        // The acts wait for the turn while time passes (PostgreSQL: on SQLite they ran at once).
        t.clock.advance(60_000);
        await held.release();
      }
      expect([(await removal).status, (await suspension).status]).toEqual([204, 200]);
    } finally {
      await held?.release();
    }
    const turnCame = t.clock().toISOString();
    expect((await t.call('GET', `/statuses/${status}`)).body.removed_at).toBe(turnCame);
    expect((await t.call('GET', `/users/${other.user.id}`)).body.suspension.created_at).toBe(turnCame);
  });

  it("a removal telling its author and reporters while a post's fan-out tells the same users: both pass, neither run again", async () => {
    // Ids grow with time: the reporter's counter comes before the author's in id order, as a fan-out batch takes them.
    const reporter = await t.member();
    const [author, poster] = [await t.member(), await t.member()];
    const config = (await t.call('POST', '/page_configurations', { body: { name: 'Fans' } })).body.id;
    const page = await created(t.call('POST', '/pages', { as: poster.creds, body: { name: 'Fan Club', page_configuration_id: config, privacy: 'public', user_id: poster.user.id } }));
    for (const who of [reporter, author])
      expect((await t.call('POST', '/follows', { as: who.creds, body: { user_id: who.user.id, followable_type: 'Page', followable_id: page } })).status).toBe(201);
    let rolledBack = 0;
    for (let round = 0; round < 15; round++) {
      const status = await post(author);
      await created(report(reporter, 'Status', status));
      const run = await atOnce(
        () => t.call('DELETE', `/statuses/${status}`),
        () => t.call('POST', '/statuses', { as: poster.creds, body: { user_id: poster.user.id, page_id: page, content: `news ${round}` } }),
      );
      await t.app.fanOut.drain();
      rolledBack += statements.filter((s) => s === 'rollback').length;
      expect(run.statuses, run.bodies.join()).toEqual([204, 201]);
    }
    if (onPostgres) expect(rolledBack, 'transactions run again after a deadlock').toBe(0);
  });
});
