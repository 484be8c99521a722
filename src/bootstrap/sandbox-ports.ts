// The ports `npm start` is about to use, checked before anything starts: a
// busy or doubly used one is one line naming the port and the setting that
// moves it, instead of processes restarting forever on EADDRINUSE.
import { clusterDir, runningPort } from '../adapters/sandbox/cluster.js';
import { isPortFree } from '../adapters/sandbox/local-ports.js';
import type { Config } from './config.js';

interface Wanted {
  setting: string;
  port: number;
  /** How the port was arrived at, when it is not set directly. */
  derived?: string;
  host: string;
}

function wantedPorts(config: Config): Wanted[] {
  const env = process.env;
  const wanted: Wanted[] = [
    { setting: 'PORT', port: config.ports.api, host: config.host },
    { setting: 'CHAIN_WORKER_PORT', port: config.ports.chainWorker, derived: env.CHAIN_WORKER_PORT ? undefined : 'PORT+1', host: config.host },
    { setting: 'DISPATCHER_PORT', port: config.ports.dispatcher, derived: env.DISPATCHER_PORT ? undefined : 'PORT+2', host: config.host },
  ];
  if (config.adminPort !== null) wanted.push({ setting: 'ADMIN_PORT', port: config.adminPort, host: config.host });
  // The local nodes, unless the network's node is configured (then none is started).
  for (const [setting, network, port, offset] of [
    ['SANDBOX_ETH_PORT', 'ETH_TESTNET', config.sandboxPorts.eth, 'PORT+4'],
    ['SANDBOX_BSC_PORT', 'BSC_TESTNET', config.sandboxPorts.bsc, 'PORT+5'],
    ['SANDBOX_TRON_PORT', 'TRON_TESTNET', config.sandboxPorts.tron, 'PORT+6'],
  ] as const) {
    if (config.networks.find((n) => n.network === network)?.rpcUrl) continue;
    wanted.push({ setting, port, derived: env[setting] ? undefined : offset, host: '127.0.0.1' });
  }
  // The embedded server's port, when asked for and not already serving this DATA_DIR (a free one is chosen otherwise).
  if (!config.databaseUrl && config.embeddedPgPort !== undefined && runningPort(clusterDir(config.dataDir, { prepare: false })) === null) {
    wanted.push({ setting: 'EMBEDDED_PG_PORT', port: config.embeddedPgPort, host: '127.0.0.1' });
  }
  return wanted;
}

const named = (w: Wanted) => (w.derived ? `${w.setting} (${w.derived})` : w.setting);
const movedBy = (w: Wanted) => (w.derived ? `set ${w.setting} or PORT` : `set ${w.setting}`);

/** The first problem with the sandbox's ports, as one line; null when all are free and distinct. */
export async function firstPortProblem(config: Config): Promise<string | null> {
  const wanted = wantedPorts(config);
  for (const [i, w] of wanted.entries()) {
    const clash = wanted.slice(0, i).find((o) => o.port === w.port);
    if (clash) return `${named(w)}: port ${w.port} is also ${named(clash)}; give each its own port (${movedBy(w)})`;
  }
  for (const w of wanted) {
    if (!(await isPortFree(w.port, w.host))) {
      return `${named(w)}: ${w.host}:${w.port} is already in use (another sandbox, or another program); stop it, or ${movedBy(w)}`;
    }
  }
  return null;
}
