// JSON-RPC over HTTP to one URL, with what a provider's answer says kept
// whole (issue 30): the HTTP status, the Retry-After header, and each
// request's own JSON-RPC code and message, also inside a non-2xx body
// (QuickNode's 413) and inside a batch. viem's http transport folds a failed
// batch into its status text, which loses exactly the words the providers'
// catalogue reads, so the pool speaks JSON-RPC itself: calls made in the same
// tick go out as one batch, each answered by its id.
import { AnswerTooLargeError, readCapped } from './read-capped.js';

/** A call that failed: at the transport (no answer, a timeout), by the HTTP status, or by the node's JSON-RPC error. */
export class JsonRpcFailure extends Error {
  constructor(
    readonly url: string,
    readonly failure: {
      /** HTTP status; undefined when no answer came. */
      status: number | undefined;
      /** The JSON-RPC error code, when there is one. */
      code: number | undefined;
      /** The node's own words (its error message, or the body). */
      text: string;
      retryAfter: string | null;
      transport?: 'timeout' | 'unreachable' | 'bad_response';
      data?: unknown;
    },
  ) {
    super(failure.text);
    this.name = 'JsonRpcFailure';
  }
}

interface Pending {
  id: number;
  method: string;
  params: unknown[];
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

interface RpcAnswer {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

const errorOf = (a: RpcAnswer['error']): { code: number | undefined; text: string; data: unknown } => ({
  code: typeof a?.code === 'number' ? a.code : undefined,
  text: typeof a?.message === 'string' ? a.message : JSON.stringify(a ?? null).slice(0, 300),
  data: a?.data,
});

export class JsonRpcClient {
  private queue: Pending[] = [];
  private nextId = 1;
  private scheduled = false;

  constructor(
    readonly url: string,
    private readonly opts: { timeoutMs: number; batchSize: number; headers?: Record<string, string> },
  ) {}

  request<T>(method: string, params: unknown[]): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, method, params, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const all = this.queue;
    this.queue = [];
    for (let i = 0; i < all.length; i += this.opts.batchSize) void this.send(all.slice(i, i + this.opts.batchSize));
  }

  private async send(calls: Pending[]): Promise<void> {
    const bodies = calls.map((c) => ({ jsonrpc: '2.0', id: c.id, method: c.method, params: c.params }));
    const fail = (f: JsonRpcFailure['failure']) => {
      for (const c of calls) c.reject(new JsonRpcFailure(this.url, f));
    };
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...this.opts.headers },
        body: JSON.stringify(bodies.length === 1 ? bodies[0] : bodies),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      text = await readCapped(res);
    } catch (err) {
      if (err instanceof AnswerTooLargeError) {
        fail({ status: undefined, code: undefined, text: err.message, retryAfter: null, transport: 'bad_response' });
        return;
      }
      const timeout = (err as Error).name === 'TimeoutError';
      fail({ status: undefined, code: undefined, text: timeout ? 'the node did not answer in time' : 'no connection', retryAfter: null, transport: timeout ? 'timeout' : 'unreachable' });
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const retryAfter = res.headers.get('retry-after');
    const answers = new Map<number, RpcAnswer>();
    for (const a of Array.isArray(parsed) ? parsed : parsed && typeof parsed === 'object' ? [parsed] : []) {
      if (a && typeof a === 'object' && typeof (a as RpcAnswer).id === 'number') answers.set((a as RpcAnswer).id as number, a as RpcAnswer);
    }
    // One object with an error and no id answers the whole request (a gateway's refusal of the batch).
    const whole = parsed && typeof parsed === 'object' && !Array.isArray(parsed) && (parsed as RpcAnswer).error && typeof (parsed as RpcAnswer).id !== 'number' ? (parsed as RpcAnswer) : null;
    for (const c of calls) {
      const a = answers.get(c.id) ?? (calls.length === 1 && parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as RpcAnswer) : null) ?? whole;
      if (a?.error !== undefined && a.error !== null) {
        const e = errorOf(a.error);
        c.reject(new JsonRpcFailure(this.url, { status: res.status, code: e.code, text: e.text, data: e.data, retryAfter }));
      } else if (!res.ok) {
        c.reject(new JsonRpcFailure(this.url, { status: res.status, code: undefined, text: text.slice(0, 300) || res.statusText, retryAfter }));
      } else if (a && 'result' in a) {
        c.resolve(a.result);
      } else {
        c.reject(new JsonRpcFailure(this.url, { status: res.status, code: undefined, text: `no answer to ${c.method} in the response`, retryAfter, transport: 'bad_response' }));
      }
    }
  }
}
