import { lookup as dnsLookupCallback, type LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { Config } from '../config.ts';

/**
 * Which URLs the service may call on a user's behalf (MCP servers, OAuth metadata and token
 * endpoints). Guards against server-side request forgery: only public addresses are reached,
 * checked twice: the URL before the request (`checkOutboundUrl`) and every address the host
 * resolves to when the socket connects (`guardedAgent`, at the end of this file).
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

/** Milliseconds a lookup may take before a call is refused. */
const DNS_TIMEOUT_MS = 5_000;

const systemLookup: HostLookup = (host) =>
  dnsLookup(host, { all: true, verbatim: true }).then((answers) => answers.map((answer) => answer.address));

/** `lookup(host)`, failing with code ETIMEOUT after `timeoutMs`. */
async function lookupWithin(lookup: HostLookup, host: string, timeoutMs: number): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    // Unref-ed: a request aborted before the lookup answers must not keep the process alive for the rest of it.
    timer = setTimeout(() => reject(Object.assign(new Error('DNS lookup timed out'), { code: 'ETIMEOUT' })), timeoutMs).unref();
  });
  try {
    return await Promise.race([lookup(host), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

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
 * IPv6 prefixes whose addresses carry an IPv4 address (or stand for one), refused whatever
 * ipaddr.js's version classifies them as: IPv4-compatible ::/96 (RFC 4291 2.5.5.1, deprecated;
 * `::10.0.0.1` is `::a00:1`), the NAT64 prefixes 64:ff9b::/96 (RFC 6052) and 64:ff9b:1::/48
 * (RFC 8215, local-use), 6to4 2002::/16 (RFC 3056) and Teredo 2001::/32 (RFC 4380). The IPv4
 * address they reach cannot be checked here. `::` and `::1` are judged by their own ranges.
 */
const EMBEDDED_IPV4_PREFIXES = ['::/96', '64:ff9b::/96', '64:ff9b:1::/48', '2002::/16', '2001::/32'].map((cidr) =>
  ipaddr.IPv6.parseCIDR(cidr),
);

/**
 * The address `bare` names, in canonical form. IPv6 goes through the WHATWG URL parser first:
 * ipaddr.js reads the dotted form `::1.2.3.4` as the IPv4-mapped `::ffff:1.2.3.4`, whereas it is
 * the IPv4-compatible `::102:304` (what a URL and a socket make of it). Undefined when invalid.
 */
function parseAddress(bare: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare);
  if (!ipaddr.IPv6.isValid(bare) || bare.includes('%')) return undefined;
  let canonical: string;
  try {
    canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  return ipaddr.IPv6.parse(canonical);
}

/**
 * Is `address` (an IPv4 or IPv6 literal) one the service may connect to? Only global unicast
 * addresses are; loopback too when the policy allows it. IPv4-mapped IPv6 (`::ffff:10.0.0.1`)
 * is judged as the IPv4 address it carries. Everything ipaddr.js classifies otherwise is
 * refused: private (10/8, 172.16/12, 192.168/16), unique local fc00::/7, link-local (169.254/16
 * with the metadata address, fe80::/10), carrier-grade NAT 100.64/10, 0/8 and `::`,
 * multicast, broadcast, reserved and documentation ranges, and the IPv6 prefixes that embed an
 * IPv4 address (`EMBEDDED_IPV4_PREFIXES`), whose real target cannot be checked here. IPv6
 * with a zone id is refused.
 */
export function isPublicAddress(address: string, policy: UrlPolicy): boolean {
  let parsed = parseAddress(address.replace(/^\[|\]$/g, ''));
  if (!parsed) return false;
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else if (v6.range() !== 'loopback' && EMBEDDED_IPV4_PREFIXES.some((prefix) => v6.match(prefix))) return false;
  }
  const range = parsed.range();
  if (range === 'loopback') return policy.allowLoopbackHttp;
  return range === PUBLIC_RANGE;
}

function isLoopbackAddress(address: string): boolean {
  let parsed = parseAddress(address.replace(/^\[|\]$/g, ''));
  if (!parsed) return false;
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === 'loopback';
}

/**
 * What the URL alone shows, with no lookup: absolute `http:`/`https:`, no user name or
 * password, a host that is no cloud metadata name and, when it is an IP literal, a public one.
 * Answers the parsed URL and its bare lower-case host.
 */
function checkUrlText(raw: string, policy: UrlPolicy): { url: URL; host: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefusedError('URL must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowLoopbackHttp)) {
    throw new UrlRefusedError('URL must use https');
  }
  if (url.username !== '' || url.password !== '') {
    throw new UrlRefusedError('URL must not contain a user name or password');
  }
  // WHATWG URL parsing already normalised numeric IPv4 forms (0x7f.1 -> 127.0.0.1) and brackets IPv6.
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === '') throw new UrlRefusedError('URL must name a host');
  if (METADATA_HOSTS.has(host)) throw new UrlRefusedError('URL must not point at a cloud metadata service');
  if (ipaddr.isValid(host)) checkAddresses(url, [host], policy);
  return { url, host };
}

/** Every address must be public, and `http:` is allowed only to loopback where the policy allows it. */
function checkAddresses(url: URL, addresses: string[], policy: UrlPolicy): void {
  for (const address of addresses) {
    if (!isPublicAddress(address, policy)) {
      throw new UrlRefusedError('URL must point at a public address (private, loopback, link-local and metadata addresses are refused)');
    }
  }
  if (url.protocol === 'http:' && !(policy.allowLoopbackHttp && addresses.every(isLoopbackAddress))) {
    throw new UrlRefusedError(policy.allowLoopbackHttp ? 'URL must use https (http is allowed only to loopback)' : 'URL must use https');
  }
}

/**
 * Parses and checks a URL the service is about to call. Answers the parsed URL, or throws
 * `UrlRefusedError` unless: it is absolute `https:` (or `http:` to loopback where the policy
 * allows loopback), carries no user name or password, names no metadata host, and every
 * address its host resolves to is public (see `isPublicAddress`). A host that cannot be
 * resolved is refused, with the same message as one that resolves to a refused address.
 *
 * The check resolves the name once; a caller that then connects should connect to one of the
 * checked addresses (or check again in its socket `lookup`), so a DNS answer that changes in
 * between (DNS rebinding) cannot reach a refused address.
 */
const NAME_NOT_PUBLIC = 'URL host does not resolve to a public address';

export async function checkOutboundUrl(raw: string, policy: UrlPolicy, options: { lookup?: HostLookup } = {}): Promise<URL> {
  const { url, host } = checkUrlText(raw, policy);
  if (ipaddr.isValid(host)) return url;
  // A name that does not resolve and one that resolves to a refused address answer alike: the
  // message reaches the caller (a 502's detail), and must not tell them apart for the private network.
  let addresses: string[] = [];
  try {
    addresses = await lookupWithin(options.lookup ?? systemLookup, host, DNS_TIMEOUT_MS);
  } catch {
    // Refused below, as an empty answer.
  }
  if (addresses.length === 0 || !addresses.every((address) => isPublicAddress(address, policy))) {
    throw new UrlRefusedError(NAME_NOT_PUBLIC);
  }
  checkAddresses(url, addresses, policy);
  return url;
}

/**
 * The check when a URL is saved (a BYOK provider `baseUrl`, an agent's MCP server), without
 * looking its name up: only what the URL alone shows (scheme, user info, IP literals outside
 * global unicast, metadata host names). A host name is judged at every call instead
 * (`checkOutboundUrl` and the connect-time guard), so saving answers alike for a name that does
 * not resolve and one that resolves to a private address: the route is no DNS oracle for the
 * private network, and saving needs no working DNS. `http:` to a host name passes here where the
 * policy allows loopback; whether it is loopback is judged at the call.
 */
export function checkUrlTextToSave(raw: string, policy: UrlPolicy): URL {
  return checkUrlText(raw, policy).url;
}

/** undici's Agent, loaded at the first outbound session, not at start (its 110 modules). */
let undiciAgent: typeof Undici.Agent | undefined;

/**
 * An undici dispatcher for Node's global fetch whose socket `lookup` checks, at connect time,
 * every address a host name resolves to with `isPublicAddress`. `checkOutboundUrl` checks the
 * URL before the request; this closes the gap after it: a DNS answer that changes between the
 * check and the connection (DNS rebinding) cannot reach a refused address. Literal IP hosts
 * are not looked up by node:net; `checkOutboundUrl` has already judged them.
 *
 * undici 7.29.1, the version bundled with Node 24.21, so its dispatcher fits the global fetch.
 */
export function guardedAgent(policy: UrlPolicy, resolve?: HostLookup): Undici.Agent {
  undiciAgent ??= (createRequire(import.meta.url)('undici') as typeof Undici).Agent;
  return new undiciAgent({ connect: { lookup: guardedLookup(policy, resolve) }, keepAliveTimeout: 1_000 });
}

export function guardedLookup(policy: UrlPolicy, resolve?: HostLookup): LookupFunction {
  return (hostname, options, callback) => {
    const answer = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      if (addresses.length === 0 || !addresses.every((entry) => isPublicAddress(entry.address, policy))) {
        return callback(
          Object.assign(new UrlRefusedError('URL must point at a public address (refused when connecting)'), { code: 'EREFUSEDADDRESS' }),
          '',
          0,
        );
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    };
    if (resolve) {
      resolve(hostname).then(
        (list) =>
          answer(
            null,
            list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
          ),
        (error: NodeJS.ErrnoException) => answer(error, []),
      );
      return;
    }
    dnsLookupCallback(hostname, { ...options, all: true }, (error, addresses) => answer(error, addresses ?? []));
  };
}
