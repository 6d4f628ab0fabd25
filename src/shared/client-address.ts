import { isIP } from 'node:net';

/**
 * The client an address is counted as, by the limits kept per address (failed authentications, connections before
 * authenticating): an IPv4 address as it is (an IPv4-mapped IPv6 address as its IPv4 one), an IPv6 address by its
 * /64 network. A /64 is what one subscriber, home line or virtual server is given whole, and its holder may send from
 * any of its 2^64 addresses: counted one by one, they were as many clients, and each limit per address none.
 */
export function clientOf(address: string | undefined): string {
  // A Unix socket's client has no address.
  if (address === undefined) return 'unknown';
  const bare = address.replace(/%.*$/, '');
  if (isIP(bare) !== 6) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return mapped[1]!;
  // An IPv4 tail (`::1.2.3.4`) is the last two groups, which a /64 leaves out.
  const groups = bare.replace(/:\d+\.\d+\.\d+\.\d+$/, ':0:0').split('::');
  const head = groups[0] ? groups[0].split(':') : [];
  const tail = groups.length > 1 && groups[1] ? groups[1].split(':') : [];
  const all = groups.length > 1 ? [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail] : head;
  return `${all
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
