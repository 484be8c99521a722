// A TCP port that was free a moment ago, for servers started by tests.
export { freePort } from '../../src/adapters/sandbox/local-ports.js';
