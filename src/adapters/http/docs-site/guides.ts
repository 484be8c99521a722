// The guides the docs site (/docs) serves, in the order of its index: each a
// fixed list of Markdown files under docs/, whole or by section (a heading
// line as written, from it to the next heading of the same or a higher
// level). `rest` takes what no other guide picked of a file: the API guide
// is whatever api.md says beyond the topics that have their own guide, so a
// new section of api.md is on the site the day it is written.

export type GuidePart =
  | { file: string; whole: true }
  | { file: string; heading: string }
  | { file: string; rest: true };

export interface Guide {
  /** The page's address: /docs/<slug>. */
  slug: string;
  title: string;
  /** One line for the index. */
  summary: string;
  parts: readonly GuidePart[];
}

export const GUIDES: readonly Guide[] = [
  {
    slug: 'quickstart',
    title: 'Quickstart',
    summary: 'From a key to a first deposit and withdrawal on the sandbox.',
    parts: [{ file: 'quickstart.md', whole: true }],
  },
  {
    slug: 'authentication',
    title: 'Authentication',
    summary: 'Signing every request with HMAC-SHA256, the time window and replays, IP allowlists, where keys come from; test vectors.',
    parts: [
      { file: 'api.md', heading: '## Authentication' },
      { file: 'operations.md', heading: '## Workspaces and keys' },
      { file: 'signing-test-vectors.md', whole: true },
    ],
  },
  {
    slug: 'idempotency',
    title: 'Idempotency',
    summary: 'Retrying a create safely with Idempotency-Key: replays, conflicts and mismatches.',
    parts: [{ file: 'api.md', heading: '## Idempotency' }],
  },
  {
    slug: 'webhooks',
    title: 'Webhooks',
    summary: 'Endpoints and events; verifying a delivery, retries, secret rotation, recovery, deduplication by delivery id.',
    parts: [{ file: 'api.md', heading: '## Webhooks' }],
  },
  {
    slug: 'amounts-and-fees',
    title: 'Amounts and fees',
    summary: 'Decimal strings, never floats; fee quotes, the fee schedule and the monthly fee commitment.',
    parts: [
      { file: 'api.md', heading: '## Amounts' },
      { file: 'api.md', heading: '## Fee quotes' },
      { file: 'api.md', heading: '## Fee commitment' },
      { file: 'operations.md', heading: '## Fee schedule' },
    ],
  },
  {
    slug: 'deposits-and-sweeps',
    title: 'Deposits and sweeps',
    summary: 'From detection to confirmation, reorgs, and how deposits are swept with gas from the gas tank.',
    parts: [
      { file: 'api.md', heading: '## Deposits' },
      { file: 'operations.md', heading: '## Sweeps and the gas tank' },
    ],
  },
  {
    slug: 'withdrawals',
    title: "Withdrawals and the owner's rules",
    summary: "Requesting, following and cancelling withdrawals; the owner's withdrawal security and dashboard.",
    parts: [
      { file: 'api.md', heading: '## Withdrawals' },
      { file: 'operations.md', heading: '## Withdrawals' },
      { file: 'operations.md', heading: '## Withdrawal security' },
      { file: 'operations.md', heading: "## The owner's dashboard" },
    ],
  },
  {
    slug: 'errors',
    title: 'Errors',
    summary: 'The error body, what to retry, and every error code with its status and what to do.',
    parts: [
      { file: 'api.md', heading: '## Errors' },
      { file: 'errors.md', whole: true },
    ],
  },
  {
    slug: 'api-guide',
    title: 'API guide',
    summary: 'Everything else about the API: overview, request bodies, scopes, pagination, limits and each resource.',
    parts: [{ file: 'api.md', rest: true }],
  },
];
