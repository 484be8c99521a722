// TCP ports that were free a moment ago, for servers started by tests.
import { isPortFree } from '../../src/adapters/sandbox/local-ports.js';

export { freePort } from '../../src/adapters/sandbox/local-ports.js';

/**
 * The first of `count` consecutive free ports (a sandbox takes PORT to
 * PORT+5), picked below the kernel's ephemeral range so that the ports other
 * tests' servers get from the kernel meanwhile do not land inside the block.
 */
export async function freePortBlock(count: number): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const base = 20_000 + Math.floor(Math.random() * 10_000);
    const free = await Promise.all(Array.from({ length: count }, (_, i) => isPortFree(base + i, '127.0.0.1')));
    if (free.every(Boolean)) return base;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}
