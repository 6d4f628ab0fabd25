import { visibleLine } from './safe-text.js';
/** Exit codes (the README's "Commands"). */
export const ExitCode = { ok: 0, failure: 1, usage: 2, auth: 4 } as const;

/**
 * How an API error reads on a terminal, after `error: `: the server's message, its code and the HTTP status; for the
 * server's own failure, the request id too, which its log names beside the cause.
 */
export const apiErrorText = (e: { message: string; code: string; status: number; body?: unknown }): string => {
  const id = e.status >= 500 ? (e.body as { error?: { request_id?: unknown } } | undefined)?.error?.request_id : undefined;
  return `${e.message} (${e.code}, HTTP ${e.status}${typeof id === 'string' ? `, request ${visibleLine(id)}` : ''})`;
};

/**
 * A refusal of the caller's credentials: the key refused, a role that may not use the API, or a suspended account
 * (exit 4): whatever the command, the key does not get in, and a script can tell that from a failure of its own.
 */
export const credentialsRefused = (e: { status: number; code: string }): boolean =>
  e.status === 401 || e.code === 'api_access_denied' || e.code === 'account_suspended';

/** A mistake in how the command was called: exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Nothing to act on, and that is no failure (an empty list piped in): its message said on stderr, exit 0. */
export class NothingToDoError extends Error {
  override name = 'NothingToDoError';
}

/** No usable credentials: exit 4. */
export class AuthError extends Error {
  override name = 'AuthError';
}

/** The person stopped the command (Ctrl-C) after it finished what was in flight: exit 130, as a shell does. */
export class InterruptedError extends Error {
  override name = 'InterruptedError';
}

/**
 * `handler` told of each of `signals` until the returned function is called. `on`, not `once`: signal-exit (which
 * ora and ink load) kills the process with the signal when it finds itself the only listener, and a `once` listener
 * has removed itself by the time signal-exit's runs.
 */
export function onSignals(signals: NodeJS.Signals[], handler: (signal: NodeJS.Signals) => void): () => void {
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}
