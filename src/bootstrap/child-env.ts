// The environment `npm start` gives each process it runs: the seed
// (MASTER_SEED, MASTER_SEED_FILE) only to the chain-worker, the one process
// that signs (ADR 0026). The api and the dispatcher never see it, not even
// in /proc/<pid>/environ.
const SEED_VARIABLES = ['MASTER_SEED', 'MASTER_SEED_FILE'] as const;

export type ChildName = 'api' | 'chain-worker' | 'dispatcher' | 'sandbox-db';

export function childEnv(name: ChildName, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (name === 'chain-worker') return { ...env };
  const out = { ...env };
  for (const variable of SEED_VARIABLES) delete out[variable];
  return out;
}
