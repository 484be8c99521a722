// The TRON half of the provider imitation: java-tron's HTTP API (POST
// /wallet/<method> or /walletsolidity/<method> with a JSON body). A lagging
// backend answers as java-tron does for blocks it has not imported yet; a node
// without transaction history answers as one with storage.transHistory.switch
// off. Bodies that pass are forwarded byte for byte (TRON amounts may exceed
// 2^53, so they are only parsed to be looked at). Sandbox and tests only.
import { cachedHead, drawLag, type ContentBackend, type ImitationContext, type Served } from './provider-behaviours.js';

interface TronRequest {
  /** The path as asked, e.g. /wallet/getnowblock. */
  path: string;
  /** The path and query, forwarded as is. */
  url: string;
  method: string;
  body: string;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const EMPTY_OBJECT: Served = { status: 200, body: '{}', headers: JSON_HEADERS };
const EMPTY_LIST: Served = { status: 200, body: '[]', headers: JSON_HEADERS };
const PREFIX = /^\/(wallet|walletsolidity)\//;
const BLOCK_ID = /^[0-9a-fA-F]{64}$/;

const numberOfBlockId = (id: string) => BigInt(`0x${id.slice(0, 16)}`);
const asSafeInteger = (v: unknown): bigint | null => (Number.isSafeInteger(v) ? BigInt(v as number) : null);

export class TronImitation {
  private readonly head: () => Promise<bigint>;

  constructor(private readonly ctx: ImitationContext) {
    this.head = cachedHead(async () => {
      const block = JSON.parse((await this.post('/wallet/getnowblock', {})).body) as { block_header?: { raw_data?: { number?: number } } };
      return BigInt(block.block_header?.raw_data?.number ?? 0);
    });
  }

  async serve(req: TronRequest, backend: ContentBackend): Promise<Served> {
    const name = req.path.replace(PREFIX, '');
    const prefix = PREFIX.exec(req.path)?.[0] ?? '/wallet/';
    let body: Record<string, unknown> = {};
    try {
      const parsed: unknown = req.body.trim() ? JSON.parse(req.body) : {};
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      return this.forward(req); // the node's own answer to what it cannot parse
    }
    if (this.ctx.rows().has('no-history')) {
      if (name === 'gettransactioninfobyblocknum') return this.noHistory(EMPTY_LIST);
      if (name === 'gettransactioninfobyid') return this.noHistory(EMPTY_OBJECT);
    }
    if (backend !== 'lagging-backend') return this.forward(req);
    const H = await this.head();
    const lagged = H - drawLag(this.ctx);
    return this.lagging(req, name, prefix, body, lagged < 0n ? 0n : lagged);
  }

  private noHistory(answer: Served): Served {
    this.ctx.answered('no-history');
    return answer;
  }

  /** A backend whose head is block L: what java-tron answers for the blocks after it. */
  private async lagging(req: TronRequest, name: string, prefix: string, body: Record<string, unknown>, L: bigint): Promise<Served> {
    switch (name) {
      case 'getnowblock':
        return this.post(`${prefix}getblockbynum`, { ...body, num: Number(L) });
      case 'getblockbynum':
      case 'gettransactioninfobyblocknum': {
        const n = asSafeInteger(body.num);
        if (n !== null && n > L) return name === 'getblockbynum' ? EMPTY_OBJECT : EMPTY_LIST;
        return this.forward(req);
      }
      case 'getblockbyid':
        return typeof body.value === 'string' && BLOCK_ID.test(body.value) && numberOfBlockId(body.value) > L ? EMPTY_OBJECT : this.forward(req);
      case 'getblockbylimitnext': {
        const start = asSafeInteger(body.startNum);
        const end = asSafeInteger(body.endNum);
        if (start === null || end === null) return this.forward(req);
        if (start > L) return EMPTY_OBJECT;
        return this.post(req.path, { ...body, endNum: Number(end < L + 1n ? end : L + 1n) });
      }
      case 'getblock': {
        const which = body.id_or_num;
        if (which === undefined || which === null || which === '') return this.post(req.path, { ...body, id_or_num: L.toString() });
        if (typeof which === 'string' && /^\d{1,15}$/.test(which) && BigInt(which) > L) return EMPTY_OBJECT;
        if (typeof which === 'string' && BLOCK_ID.test(which) && numberOfBlockId(which) > L) return EMPTY_OBJECT;
        return this.forward(req);
      }
      case 'gettransactioninfobyid': {
        const out = await this.forward(req);
        return inBlockAfter(out.body, L) ? EMPTY_OBJECT : out;
      }
      case 'gettransactionbyid': {
        const out = await this.forward(req);
        if (out.status !== 200 || !out.body.includes('"txID"')) return out;
        // The transaction carries no block number: its info does.
        const info = await this.post(`${prefix}gettransactioninfobyid`, { value: body.value });
        return inBlockAfter(info.body, L) ? EMPTY_OBJECT : out;
      }
      default:
        return this.forward(req);
    }
  }

  private async post(path: string, body: Record<string, unknown>): Promise<Served> {
    const res = await fetch(new URL(path, this.ctx.target), { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
    return { status: res.status, body: await res.text(), headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } };
  }

  private async forward(req: TronRequest): Promise<Served> {
    const withBody = req.method !== 'GET' && req.method !== 'HEAD';
    const res = await fetch(new URL(req.url, this.ctx.target), { method: req.method, headers: JSON_HEADERS, ...(withBody ? { body: req.body } : {}) });
    return { status: res.status, body: await res.text(), headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } };
  }
}

/** Whether a transaction info (JSON text) is of a block after L. */
function inBlockAfter(text: string, L: bigint): boolean {
  try {
    const info = JSON.parse(text) as { blockNumber?: unknown };
    return Number.isSafeInteger(info.blockNumber) && BigInt(info.blockNumber as number) > L;
  } catch {
    return false;
  }
}

/** TronGrid's refusals (developers.tron.network, "Rate Limits"). */
export const trongrid = {
  suspended: (limit: number, penaltyMs: number): Served => ({
    status: 403,
    body: JSON.stringify({ Error: `The key exceeds the frequency limit(${limit}), and the query server is suspended for ${penaltyMs / 1000}s` }),
    headers: JSON_HEADERS,
  }),
  unavailable: (): Served => ({ status: 503, body: 'Service Unavailable', headers: { 'content-type': 'text/plain' } }),
  tooMany: (): Served => ({ status: 429, body: 'Too Many Requests', headers: { 'content-type': 'text/plain' } }),
};

/** TronGrid's rate limit without a key: more than `limit` requests within 1 s suspends the client for the penalty. */
export class BurstGate {
  private hits: number[] = [];
  private suspendedUntil = 0;

  /** Counts a request; true when it is refused. */
  refuse(now: number, limit: number, penaltyMs: number): boolean {
    if (now < this.suspendedUntil) return true;
    this.hits = this.hits.filter((t) => now - t < 1000);
    this.hits.push(now);
    if (this.hits.length <= limit) return false;
    this.suspendedUntil = now + penaltyMs;
    this.hits = [];
    return true;
  }
}
