import { describe, expect, it } from 'vitest';
import { call, createUser } from '../helpers/api.js';
import { removeDir, startServer, useServer } from '../helpers/server.js';

const server = useServer();

describe('server basics', () => {
  it('answers an authenticated list with the envelope', async () => {
    const res = await call(server, 'GET', '/pages');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [], total_items: 0 });
  });

  it('creates a user as a Member', async () => {
    const user = await createUser(server, { nickname: 'smoke_ada' });
    expect(user.nickname).toBe('smoke_ada');
    expect(user).not.toHaveProperty('password');
  });

  it('stops gracefully on SIGTERM with exit code 0', async () => {
    const other = await startServer();
    expect(await other.stop('SIGTERM')).toBe(0);
    removeDir(other.dir);
  });
});
