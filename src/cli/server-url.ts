/**
 * A server URL as people type it: `localhost:4010` is `http://localhost:4010`, and a URL copied with the API's
 * prefix (`…/public-api/v1`) is the server's URL.
 */
export function normalizeUrl(url: string): string {
  let value = url.trim();
  if (!hasScheme(value)) value = `http://${value}`;
  return value.replace(/\/+$/, '').replace(/\/public-api\/v1$/, '');
}

const hasScheme = (value: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(value);

/**
 * Why `value` cannot be an agora server's address, known without a request (a usage error, exit 2), or undefined
 * when it may be one. A lone word (`--url notaurl`: most likely meant for something else, such as a webhook's
 * URL) would name a host of that name on port 80, and end as a server with no credentials stored for it (exit 4)
 * or out of reach: a host without dots is taken with `http://` before it or a port after it, or as `localhost`.
 */
export function serverUrlProblem(value: string): string | undefined {
  const normalized = normalizeUrl(value);
  if (!URL.canParse(normalized)) return `not a URL: give the agora server's, e.g. http://127.0.0.1:4010`;
  const url = new URL(normalized);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `not an http:// or https:// URL`;
  const word = !hasScheme(value.trim()) && !url.port && url.hostname !== 'localhost' && !/[.:[]/.test(url.hostname);
  if (word) return `a lone word is no server's address: write http://${url.hostname} for a host of that name`;
  return undefined;
}
