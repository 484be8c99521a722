// What the chain adapters tell the operator about each node URL (issue 30,
// docs/operations.md#choosing-providers): errors by kind, rate-limit
// penalties, head lag against the best URL of the network, and a URL found
// unusable for something (a method it refuses, a history it does not keep, a
// lag that demotes it). The chain-worker puts metrics and log lines behind it.

export interface NodeObserver {
  /** One failed call, by kind (timeout, rate_limited, range_too_large, method_not_served, node_behind, ...). */
  error(network: string, url: string, kind: string): void;
  /** The URL is left alone for `ms` (Retry-After or the provider's own penalty). */
  penalty(network: string, url: string, ms: number, provider: string): void;
  /** Blocks between this URL's head and the best URL's. */
  lag(network: string, url: string, blocks: number): void;
  /** The URL cannot be used for `reason` (node_unusable{network,url,reason} = 1), with the node's words. */
  unusable(network: string, url: string, reason: string, detail: string): void;
  /** The URL can be used again for `reason`. */
  usable(network: string, url: string, reason: string): void;
}
