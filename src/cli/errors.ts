/** Exit codes (the README's "Commands"). */
export const ExitCode = { ok: 0, failure: 1, usage: 2, auth: 4 } as const;

/** A mistake in how the command was called: exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** No usable credentials: exit 4. */
export class AuthError extends Error {
  override name = 'AuthError';
}
