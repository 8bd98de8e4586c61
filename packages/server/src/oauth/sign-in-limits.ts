import { usernameKey } from './users.service.ts';

/** Where attempts are counted (http/rate-limit.ts's stores: this process's, or Redis shared by every node). */
export interface AttemptCounter {
  /** Counts one attempt of `key` atomically and answers the count including it. */
  hit(key: string, windowMs: number, nowMs: number): Promise<{ count: number }>;
  /** Takes back one counted attempt, never below zero. */
  release(key: string, nowMs: number): Promise<void>;
}

/** How long failed sign-ins are counted, and how long one refused waits. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Failed sign-ins allowed per window: per username (guessing one password) and per IP (spraying many). */
const MAX_FAILURES_PER_USER = 5;
const MAX_FAILURES_PER_IP = 20;

/** One sign-in attempt, counted: whether it may be checked, and how to take it back once it succeeded. */
export interface SignInAttempt {
  readonly refused: boolean;
  /** Only failures count: a right password takes its attempt back. */
  succeeded(): Promise<void>;
}

/**
 * Sign-in throttling, per username and per client address. The attempt is
 * counted before the password is checked, atomically, so concurrent guesses
 * cannot all pass a count read before any of them is added: of any number of
 * parallel attempts, at most the limit are checked.
 */
export function createSignInLimits(store: AttemptCounter, clock: () => number) {
  return {
    async attempt(username: string, ip: string): Promise<SignInAttempt> {
      const now = clock();
      const userKey = `signin:user:${usernameKey(username)}`;
      const ipKey = `signin:ip:${ip}`;
      const [user, address] = await Promise.all([store.hit(userKey, SIGN_IN_WINDOW_MS, now), store.hit(ipKey, SIGN_IN_WINDOW_MS, now)]);
      return {
        refused: user.count > MAX_FAILURES_PER_USER || address.count > MAX_FAILURES_PER_IP,
        succeeded: async () => {
          await Promise.all([store.release(userKey, now), store.release(ipKey, now)]);
        },
      };
    },
  };
}

export type SignInLimits = ReturnType<typeof createSignInLimits>;
