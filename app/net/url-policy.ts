import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config.ts';

/**
 * Which URLs the service may call on a user's behalf (MCP servers, OAuth metadata and token
 * endpoints). Guards against server-side request forgery: only public addresses are reached.
 */
export type UrlPolicy = { allowLoopbackHttp: boolean };

/** Loopback (and `http:` to it) is allowed only when NODE_ENV=development, for local MCP servers. */
export function urlPolicyFor(config: Pick<Config, 'nodeEnv'>): UrlPolicy {
  return { allowLoopbackHttp: config.nodeEnv === 'development' };
}

/** A URL the policy refuses; `message` is written for the user who gave the URL. */
export class UrlRefusedError extends Error {
  override name = 'UrlRefusedError';
}

/** Resolves a host name to its addresses (node:dns `lookup(host, { all: true })` by default). */
export type HostLookup = (host: string) => Promise<string[]>;

const DNS_TIMEOUT_MS = 5_000;

const systemLookup: HostLookup = async (host) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS lookup timed out')), DNS_TIMEOUT_MS);
  });
  try {
    const answers = await Promise.race([dnsLookup(host, { all: true, verbatim: true }), timeout]);
    return answers.map((answer) => answer.address);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * Cloud metadata services reachable by name. Their addresses (169.254.169.254, fd00:ec2::254)
 * are link-local or private and refused anyway; the names are refused before any lookup.
 */
const METADATA_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.internal',
  'metadata.tencentyun.com',
]);

/** The ipaddr.js `range()` name of global unicast addresses (IPv4 and IPv6): the only public one. */
const PUBLIC_RANGE = 'unicast';

/**
 * Is `address` (an IPv4 or IPv6 literal) one the service may connect to? Only global unicast
 * addresses are; loopback too when the policy allows it. IPv4-mapped IPv6 (`::ffff:10.0.0.1`)
 * is judged as the IPv4 address it carries. Everything ipaddr.js classifies otherwise is
 * refused: private (10/8, 172.16/12, 192.168/16), unique local fc00::/7, link-local (169.254/16
 * with the metadata address, fe80::/10), carrier-grade NAT 100.64/10, 0/8 and `::`,
 * multicast, broadcast, reserved and documentation ranges, and IPv6 prefixes that embed an
 * IPv4 address (NAT64, 6to4, Teredo), whose real target cannot be checked here.
 */
export function isPublicAddress(address: string, policy: UrlPolicy): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return false;
  let parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.zoneId !== undefined) return false;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
  }
  const range = parsed.range();
  if (range === 'loopback') return policy.allowLoopbackHttp;
  return range === PUBLIC_RANGE;
}

function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return false;
  let parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === 'loopback';
}

/**
 * Parses and checks a URL the service is about to call. Answers the parsed URL, or throws
 * `UrlRefusedError` unless: it is absolute `https:` (or `http:` to loopback where the policy
 * allows loopback), carries no user name or password, names no metadata host, and every
 * address its host resolves to is public (see `isPublicAddress`).
 *
 * The check resolves the name once; a caller that then connects should connect to one of the
 * checked addresses (or check again in its socket `lookup`), so a DNS answer that changes in
 * between (DNS rebinding) cannot reach a refused address.
 */
export async function checkOutboundUrl(
  raw: string,
  policy: UrlPolicy,
  options: { lookup?: HostLookup } = {},
): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefusedError('URL must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UrlRefusedError('URL must use https');
  }
  if (url.username !== '' || url.password !== '') {
    throw new UrlRefusedError('URL must not contain a user name or password');
  }
  // WHATWG URL parsing already normalised numeric IPv4 forms (0x7f.1 -> 127.0.0.1) and brackets IPv6.
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (host === '') throw new UrlRefusedError('URL must name a host');
  if (METADATA_HOSTS.has(host)) throw new UrlRefusedError('URL must not point at a cloud metadata service');

  const addresses = ipaddr.isValid(host) ? [host] : await resolve(host, options.lookup ?? systemLookup);
  if (addresses.length === 0) throw new UrlRefusedError('URL host could not be resolved');
  for (const address of addresses) {
    if (!isPublicAddress(address, policy)) {
      throw new UrlRefusedError('URL must point at a public address (private, loopback, link-local and metadata addresses are refused)');
    }
  }
  if (url.protocol === 'http:' && !(policy.allowLoopbackHttp && addresses.every(isLoopbackAddress))) {
    throw new UrlRefusedError(
      policy.allowLoopbackHttp ? 'URL must use https (http is allowed only to loopback)' : 'URL must use https',
    );
  }
  return url;
}

async function resolve(host: string, lookup: HostLookup): Promise<string[]> {
  try {
    return await lookup(host);
  } catch {
    throw new UrlRefusedError('URL host could not be resolved');
  }
}
