import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * The guard of every server-side request to a caller-chosen URL (Client ID Metadata
 * Documents, webhook endpoints): the addresses that stay on the public internet, and a
 * DNS lookup that refuses any other, so a socket connects only to an address checked.
 */

// Special-purpose and non-public ranges (IANA IPv4/IPv6 special-purpose registries). Two
// lists: a BlockList matches IPv4 addresses against IPv4-mapped IPv6 rules, and the IPv6
// list refuses every IPv4-mapped address, public or not.
const NON_PUBLIC_V4 = new BlockList();
const NON_PUBLIC_V6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC_V4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  // Unspecified, loopback and the deprecated IPv4-compatible block.
  ['::', 96],
  // IPv4-mapped and NAT64/6to4/Teredo forms: they can reach any IPv4 address, so none is public here.
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['2001::', 23],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC_V6.addSubnet(network, prefix, 'ipv6');
}

/** Whether connecting to this address stays on the public internet. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return family === 4 ? !NON_PUBLIC_V4.check(address, 'ipv4') : !NON_PUBLIC_V6.check(address, 'ipv6');
}

/** A URL's host as an address when it is an IP literal (`[::1]` unbracketed), else null. */
export function ipLiteralOf(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? host : null;
}

/**
 * DNS resolution that refuses any non-public answer (unless `allowPrivate`), for the
 * `lookup` option of an http(s) request. `refuse` makes the error of a name that does not
 * resolve (no cause: resolves to nothing usable; the cause says why, for the server's log).
 * Node connects to an IP literal without calling lookup: check those with `ipLiteralOf`.
 */
export function publicOnlyLookup(allowPrivate: boolean, refuse: (cause?: unknown) => Error): LookupFunction {
  return ((
    hostname: string,
    options: { all?: boolean; family?: number },
    callback: (...args: unknown[]) => void,
  ) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(refuse(error));
      const usable = options.family ? addresses.filter((a) => a.family === options.family) : addresses;
      if (usable.length === 0) return callback(refuse());
      if (!allowPrivate && usable.some((a) => !isPublicAddress(a.address)))
        return callback(refuse(new Error(`${hostname} resolves to a non-public address`)));
      if (options.all) return callback(null, usable);
      return callback(null, usable[0]!.address, usable[0]!.family);
    });
  }) as LookupFunction;
}
