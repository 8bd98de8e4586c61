// packages/sdk/src/node/loopback.ts
import { createServer } from "node:http";
var LOOPBACK_HOSTS = /* @__PURE__ */ new Set(["127.0.0.1", "[::1]", "localhost"]);
async function signInWithLoopback(maqam, options = {}) {
  const redirect = new URL(maqam.auth.redirectUri);
  if (redirect.protocol !== "http:" || !LOOPBACK_HOSTS.has(redirect.hostname) || !redirect.port) {
    throw new TypeError(`signInWithLoopback: the redirect URI must be http on a loopback address with a port, e.g. http://127.0.0.1:8765/callback (got ${redirect.href})`);
  }
  const host = redirect.hostname === "localhost" ? "127.0.0.1" : redirect.hostname.replace(/^\[|\]$/g, "");
  let resolve;
  let reject;
  const promise = new Promise((resolveWith, rejectWith) => {
    resolve = resolveWith;
    reject = rejectWith;
  });
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", redirect);
    if (request.method !== "GET" || url.pathname !== redirect.pathname) {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found");
      return;
    }
    maqam.auth.handleRedirect(url).then(
      (tokens) => {
        finishPage(response, 200, "\u062A\u0645 \u062A\u0633\u062C\u064A\u0644 \u0627\u0644\u062F\u062E\u0648\u0644. \u064A\u0645\u0643\u0646\u0643 \u0625\u063A\u0644\u0627\u0642 \u0647\u0630\u0647 \u0627\u0644\u0646\u0627\u0641\u0630\u0629.", "Signed in. You can close this window.");
        resolve(tokens);
      },
      (error) => {
        finishPage(response, 400, "\u0644\u0645 \u064A\u0643\u062A\u0645\u0644 \u062A\u0633\u062C\u064A\u0644 \u0627\u0644\u062F\u062E\u0648\u0644.", `Sign-in did not complete: ${error.message}`);
        reject(error);
      }
    );
  });
  const timer = setTimeout(() => reject(new Error("signInWithLoopback: nobody signed in in time")), options.timeoutMs ?? 3e5);
  const onAbort = () => reject(options.signal.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await new Promise((listening, failed) => {
      server.once("error", failed);
      server.listen(Number(redirect.port), host, () => listening());
    });
    const url = await maqam.auth.createAuthorizationUrl(options.scope === void 0 ? {} : { scope: options.scope });
    await (options.open ?? ((address) => void process.stderr.write(`Open this address to sign in:
  ${address}
`)))(url);
    return await promise;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    server.closeAllConnections();
    server.close();
  }
}
function finishPage(response, status, arabic, english) {
  const escape = (text) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  response.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", connection: "close" });
  response.end(`<!doctype html><html lang="ar" dir="rtl"><meta charset="utf-8"><title>Maqam</title><body style="font-family:system-ui;padding:2rem"><p>${escape(arabic)}</p><p lang="en" dir="ltr">${escape(english)}</p></body></html>`);
}
export {
  signInWithLoopback
};
