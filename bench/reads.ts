// Signed-read figures for `npm run bench -- reads` (issue 18): signed
// GET /v2/chains and GET /v2/balances at saturation (concurrency 20) against
// the api running as its own process, each next to the baseline of the same
// run: a bare express route, also its own process, doing one indexed `pg`
// read of the key, one insert for replay protection and the same JSON
// (bench/bare-server.ts). The ratio shows what authentication, admission,
// validation, the ORM and the route cost beyond the work any signed read
// must do.
import { randomUUID } from 'node:crypto';
import { freePort } from '../src/adapters/sandbox/local-ports.js';
import { CreateWorkspace } from '../src/application/workspaces/create-workspace.js';
import { startApi } from '../src/bootstrap/api.js';
import type { Config } from '../src/bootstrap/config.js';
import { authHeaders } from '../src/sdk/signing.js';
import type { BenchRow } from './webhooks.js';
import { run, startProcess } from './withdrawals.js';

const REQUESTS = 3000;

export async function benchReads(config: Config, env: Record<string, string>, log: (line: string) => void): Promise<BenchRow[]> {
  const setup = await startApi({ ...config, ports: { ...config.ports, api: 0 } });
  const stops: (() => Promise<void>)[] = [];
  try {
    const ws = await setup.infra.container.resolve(CreateWorkspace).execute({ name: 'reads-bench' });
    const key = ws.testKey;
    const apiPort = await freePort();
    const api = await startProcess('src/bootstrap/api.ts', { ...env, LOG_LEVEL: 'info', PORT: String(apiPort) }, /api listening/);
    stops.push(api.stop);
    const base = `http://127.0.0.1:${apiPort}`;
    const signed = async (path: string, ok = 200) => {
      const res = await fetch(base + path, { headers: authHeaders(key.keyId, { secret: key.secret, method: 'GET', path, body: '' }) });
      await res.text();
      return res.status === ok;
    };
    const chainsBody = await (await fetch(`${base}/v2/chains?first=1`, { headers: authHeaders(key.keyId, { secret: key.secret, method: 'GET', path: '/v2/chains?first=1', body: '' }) })).text();
    const barePort = await freePort();
    const bare = await startProcess('bench/bare-server.ts', { DATABASE_URL: env.DATABASE_URL!, PORT: String(barePort), BARE_BODY: chainsBody }, /bare listening/);
    stops.push(bare.stop);
    const bareGet = async () => {
      const res = await fetch(`http://127.0.0.1:${barePort}/bare`, { headers: { 'X-Service-Key': key.keyId, 'X-Service-Signature': randomUUID() } });
      await res.text();
      return res.status === 200;
    };
    await run(300, () => bareGet());
    await run(300, (i) => signed(`/v2/chains?warm=${i}`));
    const baseline = await run(REQUESTS, () => bareGet());
    log(`bare express route (pg key read + replay insert + JSON): ${baseline.perSecond.toFixed(0)} req/s, p50 ${baseline.p50.toFixed(1)} ms, p99 ${baseline.p99.toFixed(1)} ms`);
    const chains = await run(REQUESTS, (i) => signed(`/v2/chains?i=${i}`));
    log(`signed GET /v2/chains: ${chains.perSecond.toFixed(0)} req/s, p50 ${chains.p50.toFixed(1)} ms, p99 ${chains.p99.toFixed(1)} ms (${chains.failed} not 200)`);
    const balances = await run(REQUESTS, (i) => signed(`/v2/balances?i=${i}`));
    log(`signed GET /v2/balances: ${balances.perSecond.toFixed(0)} req/s, p50 ${balances.p50.toFixed(1)} ms, p99 ${balances.p99.toFixed(1)} ms (${balances.failed} not 200)`);
    const baselineName = 'a bare express route, its own process: one indexed pg read of the key, one replay-guard insert, the same JSON; same concurrency (20)';
    const rows: BenchRow[] = [];
    for (const [name, m] of [
      ['signed GET /v2/chains to the api process, concurrency 20', chains],
      ['signed GET /v2/balances to the api process, concurrency 20', balances],
    ] as const) {
      rows.push(
        { name, value: Math.round(m.perSecond), unit: 'req/s', baseline: { name: baselineName, value: Math.round(baseline.perSecond) }, ratio: Number((m.perSecond / baseline.perSecond).toFixed(2)), goal: 'ratio >= 0.6' },
        { name: `${name}: p99 latency`, value: Number(m.p99.toFixed(1)), unit: 'ms', baseline: { name: 'the bare route p99', value: Number(baseline.p99.toFixed(1)) }, ratio: Number((m.p99 / baseline.p99).toFixed(2)), goal: 'ratio <= 1.5 (p99 at most 1.5× the bare route)' },
      );
    }
    return rows;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await setup.close();
  }
}
