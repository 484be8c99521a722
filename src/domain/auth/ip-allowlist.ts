// Source-IP allowlists of API keys: single addresses or CIDR ranges, IPv4 or IPv6.
// ipaddr.js is a pure parsing library (no I/O); IPv4-mapped IPv6 addresses
// (::ffff:1.2.3.4, what a dual-stack socket reports) are compared as IPv4.
import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function normalise(addr: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (addr as ipaddr.IPv6).toIPv4Address();
  }
  return addr;
}

/** Parses one allowlist entry; returns null when it is neither an IP nor a CIDR. */
export function parseAllowlistEntry(entry: string): Range | null {
  try {
    if (entry.includes('/')) {
      const [addr, bits] = ipaddr.parseCIDR(entry);
      return [addr, bits];
    }
    if (!ipaddr.isValid(entry)) return null;
    const addr = normalise(ipaddr.parse(entry));
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return null;
  }
}

/**
 * IPv4 only in plain dotted decimal: ipaddr.js would also read `010.0.0.1` as
 * octal (8.0.0.1), `0x0a.0.0.1` as hex and `10.1` as 10.0.0.1, and an
 * allowlist must mean what its owner read.
 */
const isPlainIp = (text: string): boolean =>
  // No IPv6 zone ids (fe80::1%eth0): they name an interface of the client's host, not an address we can match.
  text.includes(':') ? !text.includes('%') && ipaddr.IPv6.isValid(text) : ipaddr.IPv4.isValidFourPartDecimal(text);

/**
 * The stored form of an allowlist entry, or null when it is neither a plain IP
 * nor a CIDR range: addresses in canonical text (IPv6 compressed, RFC 5952),
 * ranges as their network address (`10.0.0.7/24` → `10.0.0.0/24`).
 */
export function canonicalAllowlistEntry(entry: string): string | null {
  const [addrText = '', bitsText, ...rest] = entry.split('/');
  if (rest.length > 0 || !isPlainIp(addrText)) return null;
  try {
    const addr = ipaddr.parse(addrText);
    if (bitsText === undefined) return addr.toString();
    if (!/^(0|[1-9]\d{0,2})$/.test(bitsText)) return null;
    const net =
      addr.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(entry) : ipaddr.IPv6.networkAddressFromCIDR(entry);
    return `${net.toString()}/${bitsText}`;
  } catch {
    return null;
  }
}

/** An empty allowlist means no restriction. */
export function isIpAllowed(sourceIp: string, allowlist: readonly string[]): boolean {
  if (allowlist.length === 0) return true;
  if (!ipaddr.isValid(sourceIp)) return false;
  const ip = normalise(ipaddr.parse(sourceIp));
  return allowlist.some((entry) => {
    const range = parseAllowlistEntry(entry);
    if (!range) return false;
    const [net, bits] = range;
    const netNorm = normalise(net);
    if (netNorm.kind() !== ip.kind()) return false;
    const effectiveBits = netNorm === net ? bits : bits - 96;
    return ip.match(netNorm, effectiveBits);
  });
}

/** True when every address of `inner` (an allowlist entry) lies inside `outer`. */
export function rangeWithin(inner: string, outer: string): boolean {
  const a = parseAllowlistEntry(inner);
  const b = parseAllowlistEntry(outer);
  if (!a || !b) return false;
  const [addr, bits] = a;
  const [net, netBits] = b;
  return addr.kind() === net.kind() && bits >= netBits && addr.match(net, netBits);
}
