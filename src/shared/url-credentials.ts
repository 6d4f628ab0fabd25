/**
 * A server URL as messages show it: without the user and password before its host, whether or not it parses
 * (`http://ops:pw@host:99999`, `ops:pw@host`, `ftp://ops:pw@host` each named it whole).
 */
export const withoutCredentials = (url: string): string => url.replace(/^(\s*(?:[a-z][a-z0-9+.-]*:\/\/)?)[^/?#\s]*@/i, '$1');

/** Any text with the user and password of the URLs it holds left out (a usage error quoting `--url`'s value). */
export const withoutUrlCredentials = (text: string): string => text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/?#'"]*@/gi, '$1');
