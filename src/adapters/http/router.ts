// Every API router matches paths case-sensitively, as URLs are: /v2/Chains is
// not /v2/chains. (express's default would serve it, and let any client mint
// new metric label values by varying the case.)
import { Router } from 'express';

export const apiRouter = (): Router => Router({ caseSensitive: true });
