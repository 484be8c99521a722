// What hosted providers and bare nodes mean by their errors (issue 30,
// docs/operations.md#choosing-providers): one table, one row per provider's
// wording, each with the public source it was read from. A node's answer is
// classified by its HTTP status, JSON-RPC code and text into what the
// adapters act on:
//   range_too_large    eth_getLogs over fewer blocks (the limit, when the text gives it, is learnt for that URL)
//   rate_limited       no call to that URL until the penalty (Retry-After, or the text's) is over
//   method_not_served  the URL does not serve this method at all (BSC's public getLogs): skipped for it
//   node_behind        the backend has not imported the block asked for: another read, never "nothing there"
// Anything the table does not know stays the caller's to decide (a revert, a
// refused transaction).

export type ProviderErrorKind = 'range_too_large' | 'rate_limited' | 'method_not_served' | 'node_behind';

/** What a node answered, as far as the classification needs it. */
export interface NodeAnswer {
  /** HTTP status; 200 for a JSON-RPC error in a successful response. */
  status: number | undefined;
  /** JSON-RPC error code, when there is one. */
  code: number | undefined;
  /** The error text (JSON-RPC message, TRON's `Error`, or the body). */
  message: string;
  /** The method (EVM) or path (TRON) asked. */
  method: string;
  /** The Retry-After header, when one came. */
  retryAfter?: string | null;
}

export interface ProviderError {
  kind: ProviderErrorKind;
  /** The catalogue row that matched (for the operator's line and the metric). */
  provider: string;
  /** range_too_large: the most blocks the provider takes, when its text says. */
  limit?: number;
  /** rate_limited: how long to leave the URL alone. */
  penaltyMs?: number;
}

interface Row {
  provider: string;
  kind: ProviderErrorKind;
  /** Public source of the wording. */
  source: string;
  matches(a: NodeAnswer): boolean;
  limit?(a: NodeAnswer): number | undefined;
  penaltyMs?(a: NodeAnswer): number | undefined;
}

const num = (s: string | undefined): number | undefined => {
  if (s === undefined) return undefined;
  const n = Number(s.replace(/[,_]/g, ''));
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
};
const isGetLogs = (a: NodeAnswer) => a.method === 'eth_getLogs';
/** "[0x10, 0x1f]": the range a provider suggests, as a block count. */
const suggested = (a: NodeAnswer): number | undefined => {
  const m = /\[\s*(0x[0-9a-f]+)\s*,\s*(0x[0-9a-f]+)\s*\]/i.exec(a.message);
  if (!m) return undefined;
  const span = Number(BigInt(m[2]!) - BigInt(m[1]!)) + 1;
  return span > 0 ? span : undefined;
};

/** Retry-After in seconds or as an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 10 * 60_000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(at - now, 0), 10 * 60_000);
}

/**
 * The catalogue. Order matters: the first row that matches wins, so the
 * specific wordings come before the generic codes (BSC's "limit exceeded" is
 * -32005 like Infura's rate limit; Infura's "more than 10000 results" too).
 */
export const PROVIDER_ERRORS: readonly Row[] = [
  // ---- method not served
  {
    provider: 'bsc-dataseed',
    kind: 'method_not_served',
    source: 'bnb-chain/bsc#1215, bnb-chain/docs-site#621: the public bsc-dataseed endpoints answer every eth_getLogs with -32005 "limit exceeded"',
    matches: (a) => isGetLogs(a) && a.code === -32005 && /^\s*limit exceeded\s*$/i.test(a.message),
  },
  {
    provider: 'method-not-found',
    kind: 'method_not_served',
    source: 'JSON-RPC 2.0 -32601; geth "the method X does not exist/is not available"; providers\' "method not supported/whitelisted"',
    matches: (a) =>
      a.code === -32601 || /does not exist\/is not available|method (is )?not (supported|available|allowed|whitelisted)|unsupported method/i.test(a.message),
  },
  // ---- log ranges
  {
    provider: 'alchemy',
    kind: 'range_too_large',
    source: 'docs.alchemy.com eth_getLogs: "You can make eth_getLogs requests with up to a 500 block range" (free tier), "Log response size exceeded ... this block range should work: [0x.., 0x..]"',
    matches: (a) => isGetLogs(a) && /up to a [\d,]+k? block range|log response size exceeded/i.test(a.message),
    limit: (a) => suggested(a) ?? num(/up to a ([\d,]+) block range/i.exec(a.message)?.[1]),
  },
  {
    provider: 'quicknode',
    kind: 'range_too_large',
    source: 'eternalsafe/wallet#57: HTTP 413, -32614 "eth_getLogs is limited to a 10,000 range" (5 on free plans)',
    matches: (a) => isGetLogs(a) && (a.code === -32614 || /eth_getLogs is limited to a [\d,]+ range/i.test(a.message)),
    limit: (a) => num(/limited to a ([\d,]+) range/i.exec(a.message)?.[1]),
  },
  {
    provider: 'blockpi',
    kind: 'range_too_large',
    source: 'ponder-sh/ponder packages/utils/src/getLogsRetryHelper.ts: BlockPI "...limited to 1024 block range"',
    matches: (a) => isGetLogs(a) && /limited to ([\d,]+) block/i.test(a.message),
    limit: (a) => num(/limited to ([\d,]+) block/i.exec(a.message)?.[1]),
  },
  {
    provider: 'drpc',
    kind: 'range_too_large',
    source: 'foundry-rs/foundry#12687: drpc "ranges over 10000 blocks are not supported on freetier"',
    matches: (a) => isGetLogs(a) && /ranges over ([\d,]+) blocks are not supported/i.test(a.message),
    limit: (a) => num(/ranges over ([\d,]+) blocks/i.exec(a.message)?.[1]),
  },
  {
    provider: 'infura',
    kind: 'range_too_large',
    source: 'INFURA/infura#237: -32005 "query returned more than 10000 results", with "Try with this block range [0x.., 0x..]"',
    matches: (a) => isGetLogs(a) && /returned more than [\d,]+ results|try with this block range/i.test(a.message),
    limit: (a) => suggested(a),
  },
  {
    provider: 'geth-bsc-range',
    kind: 'range_too_large',
    source: 'bnb-chain/bsc, java-tron /jsonrpc and erigon: "exceed maximum block range: 5000", "block range too large"',
    matches: (a) => isGetLogs(a) && /exceed(s|ed)? (the )?max(imum)? block range|block range (is )?too (large|wide|big)|max(imum)? block range/i.test(a.message),
    limit: (a) => num(/range:?\s*([\d,]+)/i.exec(a.message)?.[1]),
  },
  {
    provider: 'ankr',
    kind: 'range_too_large',
    source: 'ponder-sh/ponder getLogsRetryHelper.ts: Ankr "block range is too wide"; other providers "too many blocks", "response size", "query timeout"',
    matches: (a) => isGetLogs(a) && /range is too wide|too many (results|logs|blocks)|response (size|is too big)|query timeout|query exceeds max results/i.test(a.message),
  },
  // ---- rate limits
  {
    provider: 'trongrid',
    kind: 'rate_limited',
    source: 'developers.tron.network "Rate limits": 403 {"Error":"The key exceeds the frequency limit(30), and the query server is suspended for 30s"}',
    matches: (a) => /frequency limit|query server is suspended/i.test(a.message),
    penaltyMs: (a) => {
      const s = Number(/suspended for (\d+(?:\.\d+)?)\s*s/i.exec(a.message)?.[1] ?? NaN);
      return Number.isFinite(s) && s > 0 ? s * 1000 : 30_000;
    },
  },
  {
    provider: 'http-429',
    kind: 'rate_limited',
    source: 'RFC 6585 429 with Retry-After; Alchemy "exceeded its compute units per second capacity", Infura "project ID request rate exceeded"',
    matches: (a) => a.status === 429 || a.code === 429 || /compute units per second|request rate (exceeded|limited)|rate limit|too many requests|request count exceeded|exceeded .*capacity/i.test(a.message),
  },
  {
    provider: 'jsonrpc-limit',
    kind: 'rate_limited',
    source: 'EIP-1474 -32005 "limit exceeded" (a rate limit on most providers; BSC\'s getLogs is the row above), -32007 (viem: "request limit reached")',
    matches: (a) => a.code === -32005 || a.code === -32007,
  },
  {
    provider: 'http-503',
    kind: 'rate_limited',
    source: 'developers.tron.network "Rate limits": TronGrid answers 503 when overloaded',
    matches: (a) => a.status === 503,
  },
  // ---- a backend behind the block asked for
  {
    provider: 'backend-behind',
    kind: 'node_behind',
    source: 'geth "header not found" / "unknown block" for a block past its head (ethereum/execution-apis#296); erigon "block not found"',
    matches: (a) => /header not found|header for hash not found|unknown block|block not found|could not find block|requested block .* not (found|available)|after last accepted block|block .* is not available yet/i.test(a.message),
  },
];

/** The catalogue's reading of a node's error answer, or null when it is not one of the known conditions. */
export function classifyNodeError(a: NodeAnswer): ProviderError | null {
  const row = PROVIDER_ERRORS.find((r) => r.matches(a));
  if (!row) return null;
  const out: ProviderError = { kind: row.kind, provider: row.provider };
  if (row.kind === 'range_too_large') {
    const limit = row.limit?.(a);
    if (limit !== undefined) out.limit = limit;
  }
  if (row.kind === 'rate_limited') {
    const penalty = retryAfterMs(a.retryAfter) ?? row.penaltyMs?.(a);
    if (penalty !== undefined) out.penaltyMs = penalty;
  }
  return out;
}
