// The dashboard under /dashboard (issue 32, ADR 0033): its own router, never
// on the signed /v2 surface. Security headers on every answer, the
// stylesheet, the doors (invitations, sign-in, sign-out), then each section's
// pages; errors become pages.
import express, { type Router } from 'express';
import { Dashboard, securityHeaders, type DashboardDeps } from './dashboard.js';
import { memberPages } from './member-pages.js';
import { securityPages } from './security-pages.js';
import { signInPages } from './sign-in-pages.js';
import { STYLE } from './style.js';
import { keyPages } from './key-pages.js';
import { webhookPages } from './webhook-pages.js';
import { moneyPages } from './money-pages.js';
import { feesPages } from './fees-pages.js';

/** Each section's pages, registered on the one Dashboard pipeline. */
const SECTIONS: ((d: Dashboard) => void)[] = [signInPages, securityPages, memberPages, webhookPages, keyPages, moneyPages, feesPages];

export function dashboardRouter(deps: DashboardDeps): Router {
  const d = new Dashboard(deps);
  const outer = express.Router({ caseSensitive: true });
  outer.use(securityHeaders);
  outer.get('/assets/style.css', (_req, res) => {
    res.type('text/css').setHeader('Cache-Control', 'public, max-age=3600');
    res.send(STYLE);
  });
  outer.get('/', async (req, res) => res.redirect(303, (await d.member(req)) ? '/dashboard/security' : '/dashboard/sign-in'));
  for (const section of SECTIONS) section(d);
  outer.use(d.router);
  outer.use((_req, res) => d.render(res, { title: 'Not found', error: 'No such page', body: d.backLink() }, 404));
  outer.use(d.errorHandler());
  return outer;
}
