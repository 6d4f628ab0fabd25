/** The forward proxy a request goes through, and the variable that named it (for an error to point at). */
export interface Proxy {
  url: string;
  variable: string;
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * The proxy for `target` by the variables curl reads, as undici's EnvHttpProxyAgent reads them: `http_proxy`
 * before `HTTP_PROXY` for http://, `https_proxy`/`HTTPS_PROXY` (else the http one) for https://; none when
 * NO_PROXY is `*` or lists the host (`example.org`, `.example.org` or `*.example.org` cover its subdomains too,
 * `host:port` that port only). Decided once here for both the agent and the messages, so that an error
 * names the proxy exactly when the request went through one.
 */
export function proxyFor(target: URL, env: NodeJS.ProcessEnv = process.env): Proxy | undefined {
  const pick = (...names: string[]) => names.map((name) => ({ url: env[name], variable: name })).find((p) => p.url);
  const http = pick('http_proxy', 'HTTP_PROXY');
  const chosen = target.protocol === 'https:' ? (pick('https_proxy', 'HTTPS_PROXY') ?? http) : http;
  if (!chosen) return undefined;
  const noProxy = env.no_proxy ?? env.NO_PROXY ?? '';
  if (noProxy === '*') return undefined;
  // `host` keeps an IPv6 address's brackets, as NO_PROXY entries write it.
  const hostname = target.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number(target.port) || DEFAULT_PORTS[target.protocol] || 0;
  for (const entry of noProxy.split(/[,\s]/).filter(Boolean)) {
    const [, host = entry, entryPort] = /^(.+):(\d+)$/.exec(entry) ?? [];
    if (entryPort && Number(entryPort) !== port) continue;
    const name = host.replace(/^\*?\./, '').toLowerCase();
    if (hostname === name || hostname.endsWith(`.${name}`)) return undefined;
  }
  return { url: chosen.url!, variable: chosen.variable };
}

/** A proxy's URL as it may be shown: without the user and password it may carry. */
export function shownProxy(proxy: Proxy): string {
  try {
    const url = new URL(proxy.url);
    return url.origin === 'null' ? `${url.protocol}//${url.host}` : url.origin;
  } catch {
    return '(not a valid URL)';
  }
}
