import { isIPv6 } from 'node:net';

/** Prefix length an IPv6 client is counted by, or `false` to count every full address apart. */
export type Ipv6Subnet = number | false;

/**
 * The default prefix: a /56, as express-rate-limit 8 does. Providers hand a home or a cloud host
 * at least a /64 (often a /56 or /48), so counting full addresses lets one client rotate through
 * 2^64 of them; a /56 is the smallest block commonly delegated to one customer.
 */
export const DEFAULT_IPV6_SUBNET = 56;

/** Throws unless `value` is `false` or an integer from 32 to 128; returns it. */
export function assertIpv6Subnet(value: unknown): Ipv6Subnet {
  if (value === false || (Number.isInteger(value) && (value as number) >= 32 && (value as number) <= 128)) {
    return value as Ipv6Subnet;
  }
  throw new TypeError(`Invalid rate-limit ipv6Subnet ${JSON.stringify(value)}: expected an integer from 32 to 128, or false`);
}

/**
 * The part of a rate-limit key that names a client address:
 * - IPv4 (anything without `:`): unchanged;
 * - IPv4-mapped IPv6 (`::ffff:192.0.2.1`, as Node reports IPv4 peers on a dual-stack socket, or
 *   `::ffff:c000:201`): the IPv4 address, so both forms share one window;
 * - other IPv6, with a prefix: the network address in RFC 5952 form and the prefix length,
 *   `2001:db8:1:200::/56` for every address of `2001:db8:1:200::/56`; a zone (`%eth0`) is dropped;
 * - other IPv6 with `subnet` false, or a string that is no address: unchanged.
 */
export function ipKey(ip: string, subnet: Ipv6Subnet = DEFAULT_IPV6_SUBNET): string {
  if (!ip.includes(':')) return ip;
  const zone = ip.indexOf('%');
  const address = zone === -1 ? ip : ip.slice(0, zone);
  if (!isIPv6(address)) return ip;
  const groups = parseGroups(address);
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  if (subnet === false) return ip;
  for (let i = 0; i < 8; i++) {
    const kept = Math.min(16, Math.max(0, subnet - i * 16));
    groups[i] = groups[i]! & ((0xffff << (16 - kept)) & 0xffff);
  }
  return `${formatGroups(groups)}/${subnet}`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail as two groups). */
function parseGroups(address: string): number[] {
  const toGroups = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((group) => {
      if (!group.includes('.')) return [parseInt(group, 16)];
      const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const gap = address.indexOf('::');
  if (gap === -1) return toGroups(address);
  const head = toGroups(address.slice(0, gap));
  const tail = toGroups(address.slice(gap + 2));
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** RFC 5952 §4: lowercase hex without leading zeros; the first longest run of two or more zero groups as `::`. */
function formatGroups(groups: number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let end = i;
    while (end < 8 && groups[end] === 0) end++;
    if (end - i > bestLength) {
      bestStart = i;
      bestLength = end - i;
    }
    i = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
