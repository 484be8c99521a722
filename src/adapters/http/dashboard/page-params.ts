// What the webhook and API key pages take from a request, validated: the
// network side they show (live: mainnets, test: testnets; endpoints and keys
// belong to one), as `?side=live|test` (by default the dashboard's: test in
// the sandbox, live otherwise) with links to both
// and a hidden field in every form; ids from the path; date-times and
// checkbox lists from forms.
import { z } from 'zod';
import type { NetworkSide } from '../../../domain/money/networks.js';
import { html, type Html } from './html.js';

export const SIDES = ['live', 'test'] as const satisfies readonly NetworkSide[];

/** The side of a page's query: absent, the dashboard's default side (test in the sandbox, live otherwise); 400 when anything else. */
export const sideQuery = z.enum(SIDES).optional();

/** The side a form was shown for (a hidden field). */
export const sideField = z.enum(SIDES);

export const sideLabel = (side: NetworkSide): string => (side === 'live' ? 'Live (mainnets)' : 'Test (testnets)');

/** Links to the same page on each side, the shown one marked. */
export const sideSwitch = (path: string, side: NetworkSide): Html =>
  html`<nav aria-label="Network side"><ul class="row">${SIDES.map(
    (s) => html`<li><a href="${path}?side=${s}"${s === side ? html` aria-current="page"` : ''}>${sideLabel(s)}</a></li>`,
  )}</ul></nav>`;

export const sideInput = (side: NetworkSide): Html => html`<input type="hidden" name="side" value="${side}">`;

/** What an <input type="datetime-local"> sends (read as UTC), or an ISO 8601 date-time with its offset. */
const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;

/** A date-time field as the API's ISO 8601 string with an offset; a form's datetime-local value counts as UTC. */
export const dateTimeField = z
  .string()
  .trim()
  .max(40)
  .transform((s) => (LOCAL.test(s) ? `${s.length === 16 ? `${s}:00` : s}Z` : s))
  .pipe(z.iso.datetime({ offset: true, error: 'a date and time, e.g. 2026-11-30T14:00 (UTC) or 2026-11-30T14:00:00+01:00' }));

/** A form's value for a field that may be sent once, many times or not at all (checkboxes), as a list. */
export const asList = (v: unknown): unknown => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** An id from the path as the use cases take it: one that is not a UUID names nothing (they answer NOT_FOUND). */
export const pathId = (id: unknown): string => (typeof id === 'string' && z.uuid().safeParse(id).success ? id : '00000000-0000-0000-0000-000000000000');
