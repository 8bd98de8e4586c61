export { signInWithLoopback, type LoopbackSignInOptions } from './node/loopback.js';
