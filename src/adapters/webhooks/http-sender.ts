// WebhookSender over node's http(s): one POST, no redirects followed (node
// never follows them), the whole attempt bounded by the time-out, and the
// socket opened only to an address that passed the URL safety rules at this
// very attempt: the agent's `lookup` resolves the host, refuses the attempt
// when any answer is not public, and hands the connection exactly the
// addresses it checked, so a DNS answer that changes between check and
// connect cannot reach a private address.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { parseIp } from '../../domain/auth/ip-allowlist.js';
import { DomainError } from '../../domain/errors.js';
import type { AttemptResult, WebhookSender } from '../../domain/webhooks/ports.js';
import { checkWebhookUrl, requirePublic, type WebhookReach } from '../../domain/webhooks/url-safety.js';

/** Resolves every address of a host (the seam tests use to play a rebinding DNS). */
export type ResolveAll = (host: string, cb: (err: Error | null, addresses: LookupAddress[]) => void) => void;

const systemResolve: ResolveAll = (host, cb) => dnsLookup(host, { all: true, verbatim: true }, cb);

/** The agent's lookup: resolve, check every address, connect only to checked ones. */
export function checkedLookup(reach: WebhookReach, resolve: ResolveAll = systemResolve): LookupFunction {
  return (host, options, callback) => {
    resolve(host, (err, addresses) => {
      if (err) return callback(err, '', 0);
      try {
        requirePublic(host, addresses.map((a) => a.address), reach);
      } catch (e) {
        return callback(Object.assign(new Error((e as Error).message), { code: 'EUNSAFEADDRESS' }), '', 0);
      }
      const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
      if (wanted.length === 0) return callback(Object.assign(new Error(`${host} has no IPv${options.family} address`), { code: 'ENOTFOUND' }), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, wanted);
      return callback(null, wanted[0]!.address, wanted[0]!.family);
    });
  };
}

/**
 * A receiver's text as it may be stored and shown: control characters (NUL
 * included, which PostgreSQL cannot store) and runs of white space become one
 * space, lone surrogates are dropped.
 */
export const printable = (text: string): string =>
  text
    // eslint-disable-next-line no-control-regex -- removing control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
    .trim();

/** Most of a receiver's answer kept as last_error on a non-2xx. */
const BODY_SNIPPET = 200;

export class HttpWebhookSender implements WebhookSender {
  private readonly httpsAgent: https.Agent;
  private readonly httpAgent: http.Agent;

  constructor(
    private readonly reach: WebhookReach,
    resolve: ResolveAll = systemResolve,
  ) {
    const lookup = checkedLookup(reach, resolve);
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 50, lookup } as https.AgentOptions);
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets: 50, lookup } as http.AgentOptions);
  }

  async send(req: { url: string; headers: Record<string, string>; body: string; timeoutMs: number }): Promise<AttemptResult> {
    const started = performance.now();
    const done = (responseStatus: number | null, error: string | null): AttemptResult => ({
      responseStatus,
      error,
      durationMs: Math.round(performance.now() - started),
    });
    let url: URL;
    try {
      url = checkWebhookUrl(req.url, this.reach);
      // An IP literal is never looked up: check it here.
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (parseIp(host)) requirePublic(host, [host], this.reach);
    } catch (err) {
      return done(null, err instanceof DomainError ? `refused: ${err.message}` : 'refused: invalid URL');
    }
    return new Promise<AttemptResult>((resolve) => {
      const client = url.protocol === 'https:' ? https : http;
      const request = client.request(url, {
        method: 'POST',
        agent: url.protocol === 'https:' ? this.httpsAgent : this.httpAgent,
        headers: { ...req.headers, 'content-length': Buffer.byteLength(req.body).toString(), 'user-agent': 'wallet-service-webhooks/2' },
      });
      let settled = false;
      /** The status once the receiver's headers came: a time-out after them keeps it. */
      let answered: number | null = null;
      const finish = (r: AttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const timer = setTimeout(() => {
        finish(done(answered, `timed out after ${req.timeoutMs / 1000} s${answered === null ? '' : ` (HTTP ${answered}, the answer did not end)`}`));
        request.destroy();
      }, req.timeoutMs);
      request.on('response', (res) => {
        const status = res.statusCode ?? 0;
        answered = status;
        if (status >= 200 && status < 300) {
          // The answer is the status: the body is drained, not waited for.
          res.resume();
          return finish(done(status, null));
        }
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (c: Buffer) => {
          if (kept < BODY_SNIPPET) chunks.push(c);
          kept += c.length;
        });
        res.on('end', () => {
          const snippet = printable(Buffer.concat(chunks).toString('utf8').slice(0, BODY_SNIPPET));
          const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
          finish(done(status, `HTTP ${status}${redirect}${snippet ? `: ${snippet}` : ''}`));
        });
        res.on('error', () => finish(done(status, `HTTP ${status}: the answer broke off`)));
      });
      request.on('error', (err: NodeJS.ErrnoException) => {
        const reason = err.code === 'EUNSAFEADDRESS' ? `refused: ${err.message}` : `connection failed: ${err.code ?? err.message}`;
        finish(done(null, reason));
      });
      request.end(req.body);
    });
  }

  close(): void {
    this.httpsAgent.destroy();
    this.httpAgent.destroy();
  }
}
