"use strict";
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);

// packages/sdk/src/index.ts
var src_exports = {};
__export(src_exports, {
  AuthenticationError: () => AuthenticationError,
  InvalidRequestError: () => InvalidRequestError,
  MaqamClient: () => MaqamClient,
  MaqamError: () => MaqamError,
  NetworkError: () => NetworkError,
  NotFoundError: () => NotFoundError,
  PermissionDeniedError: () => PermissionDeniedError,
  RateLimitError: () => RateLimitError,
  ServiceUnavailableError: () => ServiceUnavailableError,
  SignInRequiredError: () => SignInRequiredError,
  localStorageTokens: () => localStorageTokens,
  memoryTokens: () => memoryTokens
});
module.exports = __toCommonJS(src_exports);

// packages/sdk/src/errors.ts
var MaqamError = class extends Error {
  name = "MaqamError";
  code;
  status;
  violations;
  requestId;
  constructor(message, details) {
    super(message);
    this.code = details.code;
    this.status = details.status;
    this.violations = details.violations ?? [];
    this.requestId = details.requestId;
    Object.defineProperty(this, "response", { value: details.response, enumerable: false });
  }
};
var InvalidRequestError = class extends MaqamError {
  name = "InvalidRequestError";
};
var AuthenticationError = class extends MaqamError {
  name = "AuthenticationError";
};
var PermissionDeniedError = class extends MaqamError {
  name = "PermissionDeniedError";
};
var NotFoundError = class extends MaqamError {
  name = "NotFoundError";
};
var RateLimitError = class extends MaqamError {
  name = "RateLimitError";
  retryAfter;
  constructor(message, details) {
    super(message, details);
    this.retryAfter = details.retryAfter;
  }
};
var ServiceUnavailableError = class extends MaqamError {
  name = "ServiceUnavailableError";
};
var SignInRequiredError = class extends MaqamError {
  name = "SignInRequiredError";
};
var NetworkError = class extends MaqamError {
  name = "NetworkError";
};
async function errorFromResponse(response, extra = {}) {
  let body = {};
  try {
    body = await response.clone().json();
  } catch {
  }
  const details = {
    code: body.code ?? "ERROR_CODE_UNSPECIFIED",
    status: response.status,
    violations: body.violations ?? [],
    requestId: body.requestId ?? response.headers.get("x-request-id") ?? void 0,
    response
  };
  const message = body.message ?? body.error_description ?? `HTTP ${response.status}`;
  switch (response.status) {
    case 400:
      return new InvalidRequestError(message, details);
    case 401:
      return new AuthenticationError(message, details);
    case 403:
      return new PermissionDeniedError(message, details);
    case 404:
      return new NotFoundError(message, details);
    case 429:
      return new RateLimitError(message, { ...details, retryAfter: extra.retryAfter });
    default:
      return response.status >= 500 ? new ServiceUnavailableError(message, details) : new MaqamError(message, details);
  }
}

// packages/sdk/src/http.ts
var RetryBudget = class {
  #tokens;
  #maxTokens;
  #tokenRatio;
  constructor(maxTokens = 10, tokenRatio = 0.1) {
    this.#maxTokens = maxTokens;
    this.#tokenRatio = tokenRatio;
    this.#tokens = maxTokens;
  }
  succeeded() {
    this.#tokens = Math.min(this.#maxTokens, this.#tokens + this.#tokenRatio);
  }
  /** Records a failed attempt; whether a retry may follow it. */
  failed() {
    this.#tokens = Math.max(0, this.#tokens - 1);
    return this.#tokens > this.#maxTokens / 2;
  }
};
var sleep = (ms, signal) => new Promise((resolve, reject) => {
  if (signal?.aborted) return reject(signal.reason);
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener("abort", () => {
    clearTimeout(timer);
    reject(signal.reason);
  }, { once: true });
});
function retryDelaySeconds(response, now = Date.now()) {
  const retryAfter = response.headers.get("retry-after");
  if (retryAfter !== null) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, (date - now) / 1e3);
  }
  const reset = Number(response.headers.get("x-ratelimit-reset"));
  return reset > 0 ? Math.max(0, reset - now / 1e3) : void 0;
}
async function send(http, call) {
  for (let attempt = 0; ; attempt++) {
    const signals = [AbortSignal.timeout(http.timeoutMs), ...call.signal ? [call.signal] : []];
    let response;
    try {
      response = await http.fetch(http.baseUrl + call.path, {
        method: call.method,
        headers: { accept: "application/json", ...call.body === void 0 ? {} : { "content-type": "application/json" }, ...call.headers },
        ...call.body === void 0 ? {} : { body: JSON.stringify(call.body) },
        signal: AbortSignal.any(signals)
      });
    } catch (error) {
      if (call.signal?.aborted) throw call.signal.reason;
      if (call.idempotent && attempt < http.maxRetries && http.retryBudget.failed()) {
        await sleep(backoff(attempt), call.signal);
        continue;
      }
      throw new NetworkError(`no answer from ${http.baseUrl}: ${error.message}`, { code: "ERROR_CODE_UNAVAILABLE", status: 0 });
    }
    if (response.ok) {
      http.retryBudget.succeeded();
      return response;
    }
    if (response.status === 429 || response.status === 503) {
      const hinted = retryDelaySeconds(response);
      const delayMs = hinted === void 0 ? backoff(attempt) : hinted * 1e3;
      if (attempt < http.maxRetries && delayMs <= http.maxRetryDelayMs && http.retryBudget.failed()) {
        await response.body?.cancel();
        await sleep(delayMs, call.signal);
        continue;
      }
      throw await errorFromResponse(response, { retryAfter: hinted });
    }
    throw await errorFromResponse(response);
  }
}
function backoff(attempt) {
  return Math.random() * Math.min(8e3, 250 * 2 ** attempt);
}

// packages/sdk/src/auth/pkce.ts
var base64url = (bytes) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
function randomToken() {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}
async function s256(verifier) {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

// packages/sdk/src/auth/session.ts
var OAuthSession = class {
  #http;
  #options;
  #refreshing;
  #channel;
  constructor(http, options) {
    this.#http = http;
    this.#options = { refreshAheadMs: 3e4, storageKey: "maqam", ...options };
    const Channel = globalThis.BroadcastChannel;
    const share = options.shareAcrossTabs ?? typeof globalThis.document !== "undefined";
    if (share && Channel) {
      this.#channel = new Channel(this.#tokensKey);
      this.#channel.onmessage = (event) => void this.#adopt(event.data);
      this.#channel.unref?.();
    }
  }
  /** Takes in the tokens another tab stored, without sending them back. */
  async #adopt(message) {
    if (!message || typeof message !== "object" || !("tokens" in message)) return;
    const current = await this.tokens();
    if (JSON.stringify(current) === JSON.stringify(message.tokens)) return;
    await this.#store(message.tokens, false);
  }
  get redirectUri() {
    return this.#options.redirectUri;
  }
  get #tokensKey() {
    return `${this.#options.storageKey}:tokens:${this.#options.clientId}`;
  }
  get #pendingKey() {
    return `${this.#options.storageKey}:pending:${this.#options.clientId}`;
  }
  async tokens() {
    const raw = await this.#options.storage.get(this.#tokensKey);
    return raw ? JSON.parse(raw) : null;
  }
  async #store(tokens, broadcast = true) {
    if (tokens) await this.#options.storage.set(this.#tokensKey, JSON.stringify(tokens));
    else await this.#options.storage.remove(this.#tokensKey);
    if (broadcast) this.#channel?.postMessage({ tokens });
    this.#options.onTokens?.(tokens);
  }
  async #fromResponse(response, previous) {
    const body = await response.json();
    return {
      accessToken: body.access_token,
      // A response without a refresh token keeps the one we had.
      refreshToken: body.refresh_token ?? previous?.refreshToken ?? "",
      expiresAt: Date.now() + body.expires_in * 1e3,
      scope: body.scope
    };
  }
  /** Starts a sign-in: keeps the verifier and state, returns the URL to send the user to. */
  async createAuthorizationUrl(options = {}) {
    const verifier = randomToken();
    const state = options.state ?? randomToken();
    await this.#options.storage.set(this.#pendingKey, JSON.stringify({ verifier, state }));
    const query = new URLSearchParams({
      response_type: "code",
      client_id: this.#options.clientId,
      redirect_uri: this.#options.redirectUri,
      scope: options.scope ?? "read stream",
      state,
      code_challenge: await s256(verifier),
      code_challenge_method: "S256"
    });
    return `${this.#http.baseUrl}/v1/auth/authorize?${query}`;
  }
  /** Finishes a sign-in from the redirect URL: checks state and iss, exchanges the code, stores the tokens. */
  async handleRedirect(url) {
    const params = new URL(url).searchParams;
    const pendingRaw = await this.#options.storage.get(this.#pendingKey);
    await this.#options.storage.remove(this.#pendingKey);
    const fail = (message, code2 = "ERROR_CODE_INVALID_REQUEST") => new SignInRequiredError(message, { code: code2, status: 0 });
    if (!pendingRaw) throw fail("no sign-in was started here (or it was already finished)");
    const pending = JSON.parse(pendingRaw);
    if (params.get("state") !== pending.state) throw fail("the redirect does not belong to the sign-in started here (state mismatch)");
    const issuer = this.#options.issuer ?? this.#http.baseUrl;
    if (params.get("iss") !== issuer) throw fail(`the redirect comes from "${params.get("iss")}", not from ${issuer} (RFC 9207)`);
    const error = params.get("error");
    if (error) throw fail(`sign-in ended with ${error}: ${params.get("error_description") ?? ""}`.trim(), error === "access_denied" ? "ERROR_CODE_PERMISSION_DENIED" : "ERROR_CODE_INVALID_REQUEST");
    const code = params.get("code");
    if (!code) throw fail("the redirect carries no code");
    const response = await send(this.#http, {
      method: "POST",
      path: "/v1/auth/token",
      body: { grant_type: "authorization_code", code, redirect_uri: this.#options.redirectUri, client_id: this.#options.clientId, code_verifier: pending.verifier },
      idempotent: false
    });
    const tokens = await this.#fromResponse(response);
    await this.#store(tokens);
    return tokens;
  }
  /** A live access token, refreshed ahead of expiry; throws SignInRequiredError when there is no session. */
  async accessToken() {
    const tokens = await this.tokens();
    if (!tokens) throw new SignInRequiredError("sign in first", { code: "ERROR_CODE_UNAUTHENTICATED", status: 401 });
    if (tokens.expiresAt - this.#options.refreshAheadMs > Date.now()) return tokens.accessToken;
    return (await this.refresh(tokens.accessToken)).accessToken;
  }
  /**
   * Refreshes once for every caller that saw `staleAccessToken` rejected or
   * expiring. If the stored token already changed (another call or tab
   * refreshed), that one is used and no request is made.
   */
  refresh(staleAccessToken) {
    this.#refreshing ??= this.#exclusively(async () => {
      const current = await this.tokens();
      if (!current) throw new SignInRequiredError("sign in first", { code: "ERROR_CODE_UNAUTHENTICATED", status: 401 });
      if (current.accessToken !== staleAccessToken && current.expiresAt - this.#options.refreshAheadMs > Date.now()) return current;
      return this.#rotate(current);
    }).finally(() => {
      this.#refreshing = void 0;
    });
    return this.#refreshing;
  }
  async #rotate(current) {
    let response;
    try {
      response = await send(this.#http, {
        method: "POST",
        path: "/v1/auth/token/refresh",
        body: { refresh_token: current.refreshToken, client_id: this.#options.clientId },
        idempotent: false
        // a refresh spends its token: never replayed blindly
      });
    } catch (error) {
      if (error instanceof MaqamError && (error.status === 401 || error.status === 400)) {
        const signedOut = new SignInRequiredError("the session ended; sign in again", {
          code: error.code,
          status: error.status,
          violations: error.violations,
          requestId: error.requestId
        });
        await this.#store(null);
        this.#options.onSignedOut?.(signedOut);
        throw signedOut;
      }
      throw error;
    }
    const tokens = await this.#fromResponse(response, current);
    await this.#store(tokens);
    return tokens;
  }
  /** Runs `work` holding a Web Lock shared by the tabs of this origin, where there are Web Locks. */
  #exclusively(work) {
    const locks = globalThis.navigator?.locks;
    return locks ? locks.request(`${this.#options.storageKey}:refresh:${this.#options.clientId}`, work) : work();
  }
  /** Revokes the session's refresh token (and with it every token of the sign-in) and forgets the tokens. */
  async signOut() {
    const tokens = await this.tokens();
    await this.#store(null);
    if (!tokens) return;
    await send(this.#http, { method: "POST", path: "/v1/auth/token/revoke", body: { token: tokens.refreshToken, token_type_hint: "refresh_token" }, idempotent: true }).catch(() => {
    });
  }
};

// packages/sdk/src/client.ts
var BATCH_SIZE = 100;
function assert(condition, message) {
  if (!condition) throw new TypeError(`MaqamClient: ${message}`);
}
var MaqamClient = class {
  #http;
  #options;
  #session;
  constructor(options) {
    assert(options && typeof options.baseUrl === "string" && /^https?:\/\//.test(options.baseUrl), "baseUrl must be an http(s) URL");
    assert(!(options.apiKey && options.auth), "give apiKey or auth, not both (the API refuses requests carrying both)");
    this.#options = options;
    this.#http = {
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      timeoutMs: options.timeoutMs ?? 15e3,
      maxRetries: options.maxRetries ?? 3,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 3e4,
      retryBudget: new RetryBudget(options.retryBudget?.maxTokens, options.retryBudget?.tokenRatio)
    };
    this.#session = options.auth ? new OAuthSession(this.#http, options.auth) : void 0;
  }
  /** Sends a call with the configured credential; with OAuth, a 401 refreshes and retries once. */
  async #call(call, context = {}) {
    const locale = context.locale ?? this.#options.locale;
    const headers = locale ? { "accept-language": locale } : {};
    const withSignal = { ...call, signal: context.signal };
    if (!this.#session) {
      if (this.#options.apiKey) headers["x-api-key"] = this.#options.apiKey;
      return send(this.#http, { ...withSignal, headers });
    }
    const token = await this.#session.accessToken();
    try {
      return await send(this.#http, { ...withSignal, headers: { ...headers, authorization: `Bearer ${token}` } });
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
      const fresh = await this.#session.refresh(token);
      return send(this.#http, { ...withSignal, headers: { ...headers, authorization: `Bearer ${fresh.accessToken}` } });
    }
  }
  songs = {
    /**
     * Any number of songs by id: sent in chunks of 100 with bounded
     * concurrency, answered as one Map in the order the ids were given
     * (duplicates once). Each entry has `song` or `error`.
     *
     * @example
     * const results = await maqam.songs.batchGet(ids, { locale: 'ar' });
     * for (const [id, result] of results) console.log(id, result.song?.title?.value ?? result.error?.code);
     */
    batchGet: async (ids, context = {}) => {
      assert(Array.isArray(ids) && ids.every((id) => typeof id === "string" && id !== ""), "ids must be non-empty strings");
      const unique = [...new Set(ids)];
      const chunks = [];
      for (let i = 0; i < unique.length; i += BATCH_SIZE) chunks.push(unique.slice(i, i + BATCH_SIZE));
      const answers = new Array(chunks.length);
      let next = 0;
      const worker = async () => {
        while (next < chunks.length) {
          const index = next++;
          const response = await this.#call(
            // A batch read changes nothing on the server: safe to repeat after a network failure.
            { method: "POST", path: "/v1/music/songs:batchGet", body: { songIdList: chunks[index].map((value) => ({ value })) }, idempotent: true },
            context
          );
          answers[index] = (await response.json()).results;
        }
      };
      await Promise.all(Array.from({ length: Math.min(this.#options.batchConcurrency ?? 4, chunks.length) }, worker));
      const merged = /* @__PURE__ */ new Map();
      chunks.forEach((chunk, index) => {
        for (const id of chunk) merged.set(id, answers[index][id]);
      });
      return merged;
    }
  };
  artists = {
    /**
     * One page of artists related to an artist.
     *
     * @example
     * const { artists, nextPageToken } = await maqam.artists.listRelated('artist-1', { pageSize: 10 });
     */
    listRelated: async (artistId, options = {}) => {
      assert(typeof artistId === "string" && artistId !== "", "artistId must be a non-empty string");
      const query = new URLSearchParams();
      if (options.pageSize !== void 0) query.set("page_size", String(options.pageSize));
      if (options.pageToken) query.set("page_token", options.pageToken);
      const path = `/v1/music/artists/${encodeURIComponent(artistId)}/related${query.size > 0 ? `?${query}` : ""}`;
      return await (await this.#call({ method: "GET", path, idempotent: true }, options)).json();
    },
    /**
     * Every related artist, fetching pages as the loop asks for them.
     *
     * @example
     * for await (const artist of maqam.artists.related('artist-1')) console.log(artist.name.value);
     */
    related: (artistId, options = {}) => {
      const list = this.artists.listRelated;
      return {
        async *[Symbol.asyncIterator]() {
          let pageToken;
          do {
            const page = await list(artistId, { ...options, ...pageToken ? { pageToken } : {} });
            yield* page.artists;
            pageToken = page.nextPageToken || void 0;
          } while (pageToken);
        }
      };
    }
  };
  streaming = {
    /**
     * A signed HLS stream of a song for the signed-in user (scope `stream`).
     *
     * @example
     * const { stream } = await maqam.streaming.acquireMusic('song-1', { maxQuality: 'AUDIO_QUALITY_STANDARD' });
     * audio.src = stream.manifestUrl; // Safari; elsewhere an HLS player library
     */
    acquireMusic: async (songId, options = {}) => {
      assert(typeof songId === "string" && songId !== "", "songId must be a non-empty string");
      const body = { songId: { value: songId }, ...options.maxQuality ? { maxQuality: options.maxQuality } : {} };
      return await (await this.#call({ method: "POST", path: "/v1/streaming/music", body, idempotent: false }, options)).json();
    }
  };
  /** OAuth sign-in; present when the client was made with `auth`. */
  get auth() {
    const session = this.#session;
    assert(session, "this client was made without `auth`");
    return {
      /** The redirect URI this client signs in with. */
      redirectUri: session.redirectUri,
      /** @example location.href = await maqam.auth.createAuthorizationUrl({ scope: 'read stream' }); */
      createAuthorizationUrl: (options) => session.createAuthorizationUrl(options),
      /** @example await maqam.auth.handleRedirect(location.href); */
      handleRedirect: (url) => session.handleRedirect(url),
      /** @example await maqam.auth.signOut(); */
      signOut: () => session.signOut(),
      /** @example const signedIn = (await maqam.auth.tokens()) !== null; */
      tokens: () => session.tokens(),
      /** @example const { scope, exp } = await maqam.auth.tokenInfo(); */
      tokenInfo: async (context = {}) => await (await this.#call({ method: "GET", path: "/v1/auth/tokeninfo", idempotent: true }, context)).json()
    };
  }
};

// packages/sdk/src/auth/storage.ts
function memoryTokens() {
  const values = /* @__PURE__ */ new Map();
  return {
    get: (key) => values.get(key) ?? null,
    set: (key, value) => void values.set(key, value),
    remove: (key) => void values.delete(key)
  };
}
function localStorageTokens(storage = globalThis.localStorage) {
  return {
    get: (key) => storage.getItem(key),
    set: (key, value) => storage.setItem(key, value),
    remove: (key) => storage.removeItem(key)
  };
}
