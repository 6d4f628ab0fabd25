import { describe, expect, it } from 'vitest';
import { removedByOwner } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { envFor } from './support.js';

/** Removing what is already removed (an Admin still reads it) is refused in the same words, asked or not. */
const server = useServer();
const run = (args: string[]) => runCli(args, { home: server.dir, env: envFor(server) });

describe('statuses delete and comments delete of removed content, in a script', () => {
  it("name whose status or comment it was, as at a terminal; --json keeps the API's error body", async () => {
    const { poster, status, comment } = await removedByOwner(server, 'Again Club', { status: 'gone status', comment: 'gone comment' });
    const [again, onComment, json] = [
      await run(['statuses', 'delete', status, '--yes']),
      await run(['comments', 'delete', comment, '--yes']),
      await run(['comments', 'delete', comment, '--yes', '--json']),
    ];
    expect([again.code, onComment.code, json.code]).toEqual([1, 1, 1]);
    expect(again.stderr).toMatch(new RegExp(`^error: ${poster.user.nickname}'s status "gone status" was already removed \\(\\d{4}-.*\\(conflict, HTTP 409\\)\\n$`));
    expect(onComment.stderr).toMatch(new RegExp(`^error: ${poster.user.nickname}'s comment "gone comment" was already removed \\(\\d{4}-.*\\(conflict, HTTP 409\\)\\n$`));
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'conflict', message: expect.stringMatching(/^This comment was already removed \(/) });
  });
});
