import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { isPublicAddress, UrlRefusedError, type HostLookup, type UrlPolicy } from './url-policy.ts';

/**
 * An undici dispatcher for Node's global fetch whose socket `lookup` checks, at connect time,
 * every address a host name resolves to with `isPublicAddress`. `checkOutboundUrl` checks the
 * URL before the request; this closes the gap after it: a DNS answer that changes between the
 * check and the connection (DNS rebinding) cannot reach a refused address. Literal IP hosts
 * are not looked up by node:net; `checkOutboundUrl` has already judged them.
 *
 * undici 6, the major version bundled with Node 20, so its dispatcher fits the global fetch.
 */
export function guardedAgent(policy: UrlPolicy, resolve?: HostLookup): Agent {
  return new Agent({ connect: { lookup: guardedLookup(policy, resolve) }, keepAliveTimeout: 1_000 });
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
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => answer(error, addresses ?? []));
  };
}
