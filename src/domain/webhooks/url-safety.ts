// Which webhook URLs the service may call (docs/api.md#webhooks): https, a
// host that is not `localhost`, and every address it resolves to public.
// The address rules are pure; resolving the host is the adapter's job
// (src/adapters/webhooks/url-guard.ts), which calls these for every address,
// at registration and again before every attempt.
import ipaddr from 'ipaddr.js';
import { DomainError } from '../errors.js';
import { normalAddress, parseIp } from '../auth/ip-allowlist.js';

/** ipaddr.js range names that are public unicast. */
const PUBLIC_RANGES = new Set(['unicast']);
/** Blocks ipaddr.js calls unicast but that are not the open internet. */
const EXTRA_BLOCKED: [string, number][] = [
  ['100.64.0.0', 10], // CGNAT (ipaddr: carrierGradeNat, listed for clarity)
  ['192.0.0.0', 24], // IETF protocol assignments
  ['198.18.0.0', 15], // benchmarking
  ['64:ff9b::', 96], // NAT64: reaches IPv4 space behind it
  ['64:ff9b:1::', 48],
  ['::', 96], // IPv4-compatible IPv6 (deprecated; ::a.b.c.d), never a public receiver
];

/** True when `ip` is a public unicast address (IPv4-mapped IPv6 judged as the IPv4 it maps). */
export function isPublicAddress(ip: string): boolean {
  const parsed = parseIp(ip);
  if (!parsed) return false;
  const addr = normalAddress(parsed);
  if (!PUBLIC_RANGES.has(addr.range())) return false;
  return !EXTRA_BLOCKED.some(([net, bits]) => {
    const n = ipaddr.parse(net);
    return n.kind() === addr.kind() && addr.match(n, bits);
  });
}

/**
 * Which receivers a deployment may call: `public` (production, and the tests'
 * default), `loopback` (the local sandbox's default: public receivers, and
 * plain http to this machine's own loopback addresses, nothing else private)
 * or `private` (every address, WEBHOOK_ALLOW_PRIVATE=true, never production).
 */
export type WebhookReach = 'public' | 'loopback' | 'private';

/** True when `ip` is a loopback address (127.0.0.0/8, ::1, and their IPv4-mapped forms). */
export function isLoopbackAddress(ip: string): boolean {
  const parsed = parseIp(ip);
  return parsed !== null && normalAddress(parsed).range() === 'loopback';
}

const isLocalhostName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

const invalid = (message: string): DomainError => new DomainError('VALIDATION_ERROR', message, [{ path: 'url', message }]);

/**
 * The URL as the service will call it, or VALIDATION_ERROR: absolute, https
 * (http too to a receiver the reach allows: a loopback one, or any private
 * one), no credentials, no fragment, not `localhost` unless the reach allows
 * it. Whether its addresses are public is checked when it is resolved.
 */
export function checkWebhookUrl(text: string, reach: WebhookReach): URL {
  // The URL parser forgives what a client did not mean to send (it drops tabs and line breaks, reads `\`
  // as `/`, adds a missing slash after the scheme): refused here, so the URL kept is the URL sent.
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f\\]/.test(text)) throw invalid('must not contain spaces, control characters or backslashes');
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]/i.test(text)) throw invalid('must be an absolute URL (scheme://host/...)');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('must be an absolute URL');
  }
  // `localhost.` is `localhost`: the name is judged without its trailing dots.
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.+$/, '');
  const loopbackHost = isLocalhostName(host) || isLoopbackAddress(host);
  const plainHttpAllowed = reach === 'private' || (reach === 'loopback' && loopbackHost);
  if (url.protocol !== 'https:' && !(plainHttpAllowed && url.protocol === 'http:')) {
    // A receiver on the developer's own machine is the usual reason for http: name what allows it.
    throw invalid(url.protocol === 'http:' ? 'must be an https URL (plain http only to a receiver on this machine, 127.0.0.1 or localhost, outside production)' : 'must be an https URL');
  }
  if (url.username || url.password) throw invalid('must not carry credentials');
  if (url.hash || text.includes('#')) throw invalid('must not carry a fragment');
  if (url.port === '0') throw invalid('must not name port 0');
  if (reach === 'public' && isLocalhostName(host)) throw invalid('must not point at localhost');
  if (reach !== 'private' && parseIp(host) && !isPublicAddress(host) && !(reach === 'loopback' && loopbackHost)) {
    throw invalid('must resolve to public addresses only');
  }
  return url;
}

/** Refuses a resolved address the reach does not allow (not public, nor loopback where loopback is allowed), naming the host. */
export function requirePublic(host: string, addresses: readonly string[], reach: WebhookReach): void {
  if (reach === 'private') return;
  if (addresses.length === 0) throw invalid(`${host} does not resolve`);
  const bad = addresses.find((a) => !isPublicAddress(a) && !(reach === 'loopback' && isLoopbackAddress(a)));
  if (bad !== undefined) throw invalid(`must resolve to public addresses only (${host} resolves to ${bad})`);
}
