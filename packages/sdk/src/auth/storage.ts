/**
 * Where the SDK keeps tokens and the pending sign-in: anything with get, set
 * and remove, synchronous or not (localStorage, a cookie jar, a keychain).
 *
 * @example
 * const maqam = new MaqamClient({ baseUrl, auth: { clientId, redirectUri, storage: localStorageTokens() } });
 */
export interface TokenStorage {
  get(key: string): string | null | undefined | Promise<string | null | undefined>;
  set(key: string, value: string): void | Promise<void>;
  remove(key: string): void | Promise<void>;
}

/**
 * Tokens kept in memory: gone when the process or page ends.
 *
 * @example
 * const storage = memoryTokens();
 */
export function memoryTokens(): TokenStorage {
  const values = new Map<string, string>();
  return {
    get: (key) => values.get(key) ?? null,
    set: (key, value) => void values.set(key, value),
    remove: (key) => void values.delete(key),
  };
}

/**
 * The part of the Web Storage API the SDK uses (localStorage, sessionStorage).
 *
 * @example
 * const storage = localStorageTokens(sessionStorage satisfies WebStorageLike); // tokens die with the tab
 */
export interface WebStorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * Tokens kept in `localStorage`, shared by the tabs of one origin.
 *
 * @example
 * const storage = localStorageTokens();
 */
export function localStorageTokens(storage: WebStorageLike = (globalThis as unknown as { localStorage: WebStorageLike }).localStorage): TokenStorage {
  return {
    get: (key) => storage.getItem(key),
    set: (key, value) => storage.setItem(key, value),
    remove: (key) => storage.removeItem(key),
  };
}
