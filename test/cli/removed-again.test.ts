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

describe('statuses comments of a removed status', () => {
  it("names the CLI's command for the removed comments, not the API's path; --json keeps the API's error body", async () => {
    const { poster, status } = await removedByOwner(server, 'Gone Comments Club', { status: 'gone with its comments', comment: 'gone too' });
    const [text, json] = [await run(['statuses', 'comments', status]), await run(['statuses', 'comments', status, '--json'])];
    expect([text.code, json.code]).toEqual([1, 1]);
    expect(text.stderr).toMatch(
      new RegExp(`^error: ${poster.user.nickname}'s status "gone with its comments" was removed \\(\\d{4}-[^)]*\\), its comments with it: .*agora(\\.js)? removed list --target-type Comment lists them \\(not_found, HTTP 404\\)\\n$`),
    );
    expect(text.stderr).not.toContain('/removed_content');
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'not_found', message: expect.stringContaining('GET /removed_content') });
  });
});
