// Node-only helpers: they use node:http, so they live apart from the
// runtime-neutral client (`@maqam/sdk/node`).
export { signInWithLoopback, type LoopbackSignInOptions } from './node/loopback.ts';
