// How a node URL is shown in logs, errors and metric labels: never with the
// provider's key, which may be in its path, its query or its user info.
import { createHash } from 'node:crypto';

/** A node URL as labels, log lines and error texts show it: its origin, and for one with a path or a query a digest instead of them. */
export const urlLabel = (url: string): string => {
  try {
    const u = new URL(url);
    // A provider's key may be anywhere in the path (Infura, Alchemy, QuickNode, a gateway's own): the path is
    // never shown, only a short digest of the whole URL that tells two URLs of one host apart.
    if (u.pathname === '/' && !u.search) return `${u.protocol}//${u.host}`;
    return `${u.protocol}//${u.host}/…#${createHash('sha256').update(url).digest('hex').slice(0, 6)}`;
  } catch {
    return 'unparsable-url';
  }
};
