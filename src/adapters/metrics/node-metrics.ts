// What the operator sees of each node URL (issue 30, docs/operations.md#choosing-providers):
// chain_node_url_errors_total{network,url,kind}, chain_node_rate_limit_penalties_total{network,url},
// chain_node_head_lag_blocks{network,url} (against the network's best URL), and
// node_unusable{network,url,reason} (1 while the URL cannot be used for that: a method it
// refuses, a lag that demotes it), each change of the last also one log line.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { NodeObserver } from '../chains/node-observer.js';
import { urlLabel } from '../chains/url-label.js';

export { urlLabel };


/** The least time between two rate-limit lines of one URL. */
const PENALTY_LINE_EVERY_MS = 60_000;

export function createNodeObserver(registry: Registry, logger: Logger): NodeObserver {
  const errors = new Counter({
    name: 'chain_node_url_errors_total',
    help: 'Failed calls per node URL, by kind: timeout, unreachable, server_error, rate_limited, range_too_large, method_not_served, node_behind, bad_response',
    labelNames: ['network', 'url', 'kind'],
    registers: [registry],
  });
  const penalties = new Counter({
    name: 'chain_node_rate_limit_penalties_total',
    help: 'Rate-limit penalties a node URL imposed (no call to it until each ended)',
    labelNames: ['network', 'url'],
    registers: [registry],
  });
  const lag = new Gauge({ name: 'chain_node_head_lag_blocks', help: "Blocks between a node URL's head and the network's best URL", labelNames: ['network', 'url'], registers: [registry] });
  const unusable = new Gauge({
    name: 'node_unusable',
    help: 'A node URL that cannot be used for a reason (1): a method it refuses (eth_getLogs_refused), a lag that demotes it, no transaction history',
    labelNames: ['network', 'url', 'reason'],
    registers: [registry],
  });
  // A rate limit is routine on a busy pool: one line per URL a minute at most, with how many came meanwhile.
  const lastLine = new Map<string, { at: number; since: number }>();
  return {
    error: (network, url, kind) => errors.inc({ network, url: urlLabel(url), kind }),
    penalty: (network, url, ms, provider) => {
      penalties.inc({ network, url: urlLabel(url) });
      const key = `${network} ${url}`;
      const seen = lastLine.get(key);
      if (seen && Date.now() - seen.at < PENALTY_LINE_EVERY_MS) {
        seen.since++;
        return;
      }
      lastLine.set(key, { at: Date.now(), since: 0 });
      logger.warn(
        { network, url: urlLabel(url), penaltyMs: ms, provider, penaltiesSinceLastLine: seen?.since ?? 0 },
        'node rate limit: no call to this URL until the penalty ends (one line a minute at most; chain_node_rate_limit_penalties_total counts them all)',
      );
    },
    lag: (network, url, blocks) => lag.set({ network, url: urlLabel(url) }, blocks),
    unusable: (network, url, reason, detail) => {
      unusable.set({ network, url: urlLabel(url), reason }, 1);
      logger.error({ network, url: urlLabel(url), reason, detail }, `node unusable for ${reason}: ${detail}`);
    },
    usable: (network, url, reason) => {
      unusable.set({ network, url: urlLabel(url), reason }, 0);
      logger.info({ network, url: urlLabel(url), reason }, `node usable again (${reason})`);
    },
  };
}
