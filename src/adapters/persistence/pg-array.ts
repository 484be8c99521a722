// PostgreSQL array literals for bulk statements (`unnest(?::uuid[], …)`): one
// parameter per column however many rows, far cheaper to bind and plan than a
// VALUES list of thousands of parameters.

/** `{"a","b",NULL}`: every element quoted, backslashes and quotes escaped, null as NULL. */
export const pgArrayLiteral = (items: readonly (string | number | null)[]): string =>
  `{${items.map((v) => (v === null ? 'NULL' : `"${String(v).replace(/[\\"]/g, (c) => `\\${c}`)}"`)).join(',')}}`;
