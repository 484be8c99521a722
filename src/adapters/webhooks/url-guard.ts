// WebhookUrlGuard: the URL's shape (domain rules), then every address its host
// resolves to must be public, unless the deployment's reach allows loopback
// receivers (the local sandbox's default) or private ones
// (WEBHOOK_ALLOW_PRIVATE=true, for tests). Checked when an
// endpoint is registered or changed; the dispatcher checks again before every
// attempt and connects only to the addresses it checked.
import { lookup } from 'node:dns/promises';
import { parseIp } from '../../domain/auth/ip-allowlist.js';
import { checkWebhookUrl, requirePublic, type WebhookReach } from '../../domain/webhooks/url-safety.js';
import type { WebhookUrlGuard } from '../../domain/webhooks/ports.js';

export type Resolve = (host: string) => Promise<string[]>;

const dnsResolve: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export class DnsWebhookUrlGuard implements WebhookUrlGuard {
  constructor(
    private readonly reach: WebhookReach,
    private readonly resolve: Resolve = dnsResolve,
  ) {}

  async check(text: string): Promise<string> {
    const url = checkWebhookUrl(text, this.reach);
    if (this.reach !== 'private') {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      const addresses = parseIp(host) ? [host] : await this.resolve(host).catch(() => []);
      // A host that does not resolve (yet, or here) reaches nothing: it is
      // accepted, and every attempt resolves and checks it again.
      if (addresses.length > 0) requirePublic(host, addresses, this.reach);
    }
    return url.toString();
  }
}
