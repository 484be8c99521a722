// PostgreSQL cannot store the NUL character in text or jsonb, a lone UTF-16
// surrogate (JSON allows "\ud800") would be silently replaced on its way to
// UTF-8, and a deeply nested body would only exhaust the stack of whatever
// walks it later. All three are refused for every request, before any route
// runs, as VALIDATION_ERROR naming the place: bad input changes nothing and
// never reaches the database.
import type { RequestHandler } from 'express';
import { sendError } from './error-handler.js';

/** A lone surrogate: in a `u` regex a well-formed pair is one code point, so only halves match. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Deepest nesting of objects and arrays a request body may have. */
export const MAX_BODY_DEPTH = 32;

interface Problem {
  path: string;
  message: string;
}

/** The first problem in a parsed JSON value, found without recursion. */
export function findUnstorable(root: unknown, rootPath = ''): Problem | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: rootPath, depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { path, message: 'must not contain the NUL character (\\u0000)' };
      if (LONE_SURROGATE.test(value)) return { path, message: 'must be well-formed Unicode (no lone surrogate)' };
      continue;
    }
    if (typeof value === 'number' && !Number.isFinite(value)) {
      return { path, message: 'must be a finite number (JSON.parse reads 1e400 as Infinity)' };
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH) return { path, message: `nested deeper than ${MAX_BODY_DEPTH} levels` };
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (const [key, child] of entries) {
      const childPath = path ? `${path}.${key}` : key;
      if (key.includes('\u0000') || LONE_SURROGATE.test(key)) {
        return { path: childPath, message: 'a key must be well-formed Unicode without the NUL character' };
      }
      stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return null;
}

export const refuseUnstorableInput: RequestHandler = (req, res, next) => {
  const problem = findUnstorable(req.query) ?? findUnstorable(req.body);
  if (problem) return sendError(res, 'VALIDATION_ERROR', 'Request validation failed', [problem]);
  next();
};
