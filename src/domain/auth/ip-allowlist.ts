// Source-IP allowlists of API keys: single addresses or CIDR ranges, IPv4 or IPv6.
// ipaddr.js is a pure parsing library (no I/O).
//
// One normal form serves every check. An IPv4-mapped IPv6 address
// (::ffff:1.2.3.4, what a dual-stack socket reports) IS the IPv4 address, and
// a mapped range of at least 96 bits (::ffff:10.0.0.0/104) IS the IPv4 range
// (10.0.0.0/8). Everything else keeps its family. An address is allowed by a
// range of its own family only, and a range lies within another only in the
// same family: so whatever a child allowlist accepted at minting allows, its
// parent allows too, whichever spelling either used.
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** A range in normal form: mapped IPv6 ranges of ≥ 96 bits become IPv4. */
export interface IpRange {
  net: Address;
  bits: number;
}

/**
 * Parses an address as written. An IPv6 address ending in dotted IPv4 is
 * first rewritten with a hex tail: ipaddr.js would read the IPv4-compatible
 * `::10.0.0.1` as the mapped `::ffff:10.0.0.1`, that is as IPv4, which it is
 * not (and a socket prints such an IPv6 peer in just that form).
 */
export function parseIp(text: string): Address | null {
  let t = text;
  const dotted = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    if ([a, b, c, d].some((n) => n > 255)) return null;
    t = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  if (!ipaddr.isValid(t)) return null;
  try {
    return ipaddr.parse(t);
  } catch {
    return null;
  }
}

/** An address in normal form: IPv4-mapped IPv6 as the IPv4 it maps. */
export function normalAddress(addr: Address): Address {
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
}

function normalRange(addr: Address, bits: number): IpRange {
  if (addr.kind() === 'ipv6' && bits >= 96 && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    return { net: (addr as ipaddr.IPv6).toIPv4Address(), bits: bits - 96 };
  }
  return { net: addr, bits };
}

/**
 * IPv4 only in plain dotted decimal: ipaddr.js would also read `010.0.0.1` as
 * octal (8.0.0.1), `0x0a.0.0.1` as hex and `10.1` as 10.0.0.1, and an
 * allowlist must mean what its owner read.
 */
const isPlainIp = (text: string): boolean =>
  // No IPv6 zone ids (fe80::1%eth0): they name an interface of the client's host, not an address we can match.
  text.includes(':') ? !text.includes('%') && ipaddr.IPv6.isValid(text) : ipaddr.IPv4.isValidFourPartDecimal(text);

/** Parses one allowlist entry into its normal form; null when it is neither a plain IP nor a CIDR range. */
export function parseAllowlistEntry(entry: string): IpRange | null {
  const [addrText = '', bitsText, ...rest] = entry.split('/');
  if (rest.length > 0 || !isPlainIp(addrText)) return null;
  try {
    const addr = parseIp(addrText);
    if (!addr) return null;
    const max = addr.kind() === 'ipv4' ? 32 : 128;
    if (bitsText === undefined) return normalRange(addr, max);
    if (!/^(0|[1-9]\d{0,2})$/.test(bitsText) || Number(bitsText) > max) return null;
    return normalRange(addr, Number(bitsText));
  } catch {
    return null;
  }
}

/** The network address of a range: its host bits cleared. */
function networkOf({ net, bits }: IpRange): Address {
  const cidr = `${net.toString()}/${bits}`;
  return net.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(cidr) : ipaddr.IPv6.networkAddressFromCIDR(cidr);
}

/**
 * The stored form of an allowlist entry, or null when it is neither a plain IP
 * nor a CIDR range: the normal form in canonical text (IPv6 compressed,
 * RFC 5952; mapped IPv6 as IPv4), ranges as their network address
 * (`10.0.0.7/24` → `10.0.0.0/24`, `::ffff:10.1.2.3/104` → `10.0.0.0/8`).
 */
export function canonicalAllowlistEntry(entry: string): string | null {
  const range = parseAllowlistEntry(entry);
  if (!range) return null;
  const full = range.bits === (range.net.kind() === 'ipv4' ? 32 : 128);
  // A single address is written bare only when it was sent bare.
  if (full && !entry.includes('/')) return range.net.toString();
  return `${networkOf(range).toString()}/${range.bits}`;
}

const contains = (range: IpRange, addr: Address): boolean => addr.kind() === range.net.kind() && addr.match(range.net, range.bits);

/** An empty allowlist means no restriction. */
export function isIpAllowed(sourceIp: string, allowlist: readonly string[]): boolean {
  if (allowlist.length === 0) return true;
  const parsed = parseIp(sourceIp);
  if (!parsed) return false;
  const ip = normalAddress(parsed);
  return allowlist.some((entry) => {
    const range = parseAllowlistEntry(entry);
    return range !== null && contains(range, ip);
  });
}

/** True when every address `inner` (an allowlist entry) allows, `outer` allows too. */
export function rangeWithin(inner: string, outer: string): boolean {
  const a = parseAllowlistEntry(inner);
  const b = parseAllowlistEntry(outer);
  if (!a || !b) return false;
  return a.bits >= b.bits && contains(b, a.net);
}
