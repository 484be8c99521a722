// Test DATA_DIRs: removed with the embedded PostgreSQL cluster they made
// outside themselves (as root, a DATA_DIR closed to others keeps its cluster
// under /var/tmp: src/adapters/sandbox/cluster.ts).
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { clusterMarker } from '../../src/adapters/sandbox/cluster.js';

export function removeDataDir(dataDir: string): void {
  const marker = clusterMarker(dataDir);
  if (existsSync(marker)) {
    const cluster = readFileSync(marker, 'utf8').trim();
    if (cluster.startsWith('/var/tmp/wallet-sandbox-pg-')) rmSync(cluster, { recursive: true, force: true });
  }
  rmSync(dataDir, { recursive: true, force: true });
}
