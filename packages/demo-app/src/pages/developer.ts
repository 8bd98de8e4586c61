// The Developer page: a developer's own API keys (contract section 16). Make
// one (its secret shown once, with a Copy button), rotate one with a grace
// for the old secret, revoke one after a question, and see a key's calls
// day by day over the last 30 days. An account that may not manage keys sees
// why, not an error.
import { PermissionDeniedError, type ApiKey, type ApiKeyScope } from '@maqam/sdk';
import { html, nothing } from 'lit-html';
import { dailyUsage, usageChart, type DayUsage } from '../components/usage-chart.ts';
import { hasDeveloperScope } from '../developer-access.ts';
import { GRACE_CHOICES, type GraceSeconds } from '../developer-texts.ts';
import { dateOf, minute, number, t } from '../format.ts';
import { act, collect, maqam, say } from '../session.ts';
import { store, type Shown } from '../store.ts';

/** A new key's secret, on screen until the developer says it is kept (or leaves the page): the server never shows it again. */
export interface RevealedSecret {
  keyId: string;
  name: string;
  secret: string;
  /** Made by a rotation: when the old secret stops working (null: it has stopped). */
  rotation?: { oldUntil: string | null };
}

export interface DeveloperView {
  view: 'developer';
  /** keys: the developer's page; scope: the token lacks the developer scope; role: the account is not a developer. */
  access: 'keys' | 'scope' | 'role';
  keys: ApiKey[];
  /** The key whose usage the chart shows. */
  selected: string | null;
  usage: DayUsage[] | null;
  revealed: RevealedSecret | null;
  /** The key whose rotate form or revoke question is open. */
  asking: { keyId: string; action: 'rotate' | 'revoke' } | null;
  /** A request of this page is under way: its buttons wait (a second click would make a second key). */
  busy: boolean;
  /** Why the new key's form was not sent. */
  formError: string;
}

const SCOPES: readonly ApiKeyScope[] = ['catalog', 'video', 'playlists'];
const DEFAULT_GRACE: GraceSeconds = 24 * 3600;
const KEYS_PAGE_SIZE = 50;

const isLive = (key: ApiKey) => key.status === 'API_KEY_STATUS_ACTIVE' || key.status === 'API_KEY_STATUS_ROTATING';
const newestFirst = (a: ApiKey, b: ApiKey) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id);

/** Every key of the developer, through the SDK's iterator (a page at a time; a developer holds at most 100). */
const readKeys = () => collect(maqam.developer.keys.list({ pageSize: KEYS_PAGE_SIZE }));

/** The last 30 days (UTC) of a key's calls, as the server counts them by default. */
const readUsage = async (keyId: string) => dailyUsage(await maqam.developer.keys.usage(keyId));

/** The key to chart: the one chosen before if it is still listed, else the newest that works, else the newest. */
function chosenKey(keys: readonly ApiKey[], before: string | null): string | null {
  if (before && keys.some((key) => key.id === before)) return before;
  const sorted = [...keys].sort(newestFirst);
  return (sorted.find(isLive) ?? sorted[0])?.id ?? null;
}

export async function load(): Promise<DeveloperView> {
  // Read again in the other language (or refreshed): a secret still on screen stays, as does the key charted.
  const before = store.state.view?.view === 'developer' ? store.state.view : null;
  const view: DeveloperView = {
    view: 'developer', access: 'keys', keys: [], selected: null, usage: null, revealed: before?.revealed ?? null, asking: null, busy: false, formError: '',
  };
  if (!hasDeveloperScope(store.state.user)) return { ...view, access: 'scope' };
  try {
    view.keys = await readKeys();
  } catch (error) {
    if (error instanceof PermissionDeniedError) return { ...view, access: 'role' };
    throw error;
  }
  view.selected = chosenKey(view.keys, before?.selected ?? null);
  if (view.selected) view.usage = await readUsage(view.selected);
  return view;
}

/** Runs a request of the page with its buttons waiting; what it answers changes the page if it is still on screen. */
async function busyWith(view: Shown<DeveloperView>, work: () => Promise<Partial<DeveloperView> | undefined>): Promise<boolean> {
  if (!store.patchView(view, () => ({ busy: true, formError: '' }))) return false;
  let shown = false;
  await act(async () => {
    try {
      const change = await work();
      shown = store.patchView(view, () => ({ ...change, busy: false }));
    } finally {
      store.patchView(view, () => ({ busy: false }));
    }
  });
  return shown;
}

const focus = (selector: string) => document.querySelector<HTMLElement>(`#main ${selector}`)?.focus();

/**
 * A new key's secret on the page, at once: it is in the answer only, so it
 * shows before the list is read again (a failure there must not lose it),
 * with the focus on it.
 */
function reveal(view: Shown<DeveloperView>, revealed: RevealedSecret) {
  if (!store.patchView(view, () => ({ revealed, selected: revealed.keyId, usage: null, asking: null }))) return;
  focus('#secret-heading');
}

async function createKey(view: Shown<DeveloperView>, form: HTMLFormElement) {
  const text = t();
  const data = new FormData(form);
  const scopes = data.getAll('scope') as ApiKeyScope[];
  if (scopes.length === 0) {
    store.patchView(view, () => ({ formError: text.pickScope }));
    return;
  }
  const name = String(data.get('name') ?? '').trim() || text.newKeyName(number(view.keys.length + 1));
  const rate = String(data.get('rate') ?? '').trim();
  await busyWith(view, async () => {
    const { apiKey, secret } = await maqam.developer.keys.create({ name, scopes, rateLimitPerMinute: rate === '' ? undefined : Number(rate) });
    form.reset();
    reveal(view, { keyId: apiKey.id, name: apiKey.name, secret });
    say(text.keyCreated(apiKey.name));
    const [keys, usage] = await Promise.all([readKeys(), readUsage(apiKey.id)]);
    return { keys, usage };
  });
}

async function rotateKey(view: Shown<DeveloperView>, key: ApiKey, graceSeconds: number) {
  await busyWith(view, async () => {
    const { apiKey, secret } = await maqam.developer.keys.rotate(key.id, { graceSeconds });
    // Until the list says when the server ends the old secret, the grace as this clock counts it.
    const revealed: RevealedSecret = {
      keyId: apiKey.id, name: apiKey.name, secret, rotation: { oldUntil: graceSeconds > 0 ? new Date(Date.now() + graceSeconds * 1000).toISOString() : null },
    };
    reveal(view, revealed);
    say(t().keyRotated(key.name));
    const [keys, usage] = await Promise.all([readKeys(), readUsage(apiKey.id)]);
    const old = keys.find((k) => k.id === key.id);
    const oldUntil = old?.status === 'API_KEY_STATUS_ROTATING' ? old.expiresAt : null;
    // The server's time, if the secret is still on screen.
    store.patchView(view, (current) => (current.revealed?.secret === secret ? { revealed: { ...revealed, rotation: { oldUntil } } } : {}));
    return { keys, usage };
  });
}

async function revokeKey(view: Shown<DeveloperView>, key: ApiKey) {
  const shown = await busyWith(view, async () => {
    await maqam.developer.keys.revoke(key.id);
    const keys = await readKeys();
    say(t().keyRevoked(key.name));
    // A secret on screen for the key revoked has no use left.
    return { keys, asking: null, ...(view.revealed?.keyId === key.id ? { revealed: null } : {}) };
  });
  if (shown) focus('#keys-heading');
}

async function showUsage(view: Shown<DeveloperView>, keyId: string) {
  store.patchView(view, () => ({ selected: keyId }));
  await busyWith(view, async () => ({ usage: await readUsage(keyId) }));
}

/** The keys and the chart read again: calls made since, a key's last use. */
async function refresh(view: Shown<DeveloperView>) {
  await busyWith(view, async () => {
    const keys = await readKeys();
    const selected = chosenKey(keys, view.selected);
    return { keys, selected, usage: selected ? await readUsage(selected) : null };
  });
}

function ask(view: Shown<DeveloperView>, keyId: string, action: 'rotate' | 'revoke') {
  const open = view.asking?.keyId === keyId && view.asking.action === action;
  store.patchView(view, () => ({ asking: open ? null : { keyId, action } }));
  // The rotate form's chosen grace, or the question's Cancel: a second Enter does not revoke.
  if (!open) focus(action === 'rotate' ? `[data-key="${CSS.escape(keyId)}"] input[name="grace"]:checked` : `[data-key="${CSS.escape(keyId)}"] [data-testid="cancel-revoke"]`);
}

/** Copies the secret; where the clipboard is refused (an insecure origin, a denied permission), selects it for the keyboard. */
function copySecret(event: Event) {
  const code = (event.currentTarget as HTMLElement).closest('.secret-row')!.querySelector('code')!;
  const select = () => {
    getSelection()?.selectAllChildren(code);
    say(t().copyBySelection);
  };
  if (!navigator.clipboard) return select();
  void navigator.clipboard.writeText(code.textContent ?? '').then(() => say(t().copied), select);
}

function secretPanel(view: Shown<DeveloperView>, revealed: RevealedSecret) {
  const text = t();
  const { rotation } = revealed;
  return html`
    <section class="secret-panel" aria-labelledby="secret-heading" data-testid="secret-panel">
      <h3 id="secret-heading" tabindex="-1">${text.newSecretTitle(revealed.name)}</h3>
      <p class="warning">${text.secretWarning}</p>
      <div class="secret-row">
        <code class="secret" dir="ltr" translate="no" data-testid="secret">${revealed.secret}</code>
        <button type="button" class="primary" data-testid="copy-secret" @click=${copySecret}>${text.copy}</button>
      </div>
      ${rotation ? html`<p class="meta" data-testid="old-key-until">${rotation.oldUntil ? text.oldWorksUntil(minute(rotation.oldUntil)) : text.oldStopped}</p>` : nothing}
      <button type="button" data-testid="secret-done" @click=${() => {
        store.patchView(view, () => ({ revealed: null }));
        focus('#keys-heading');
      }}>${text.savedIt}</button>
    </section>`;
}

function statusOf(key: ApiKey): { name: string; label: string } {
  const text = t();
  if (key.status === 'API_KEY_STATUS_ROTATING') return { name: 'rotating', label: text.worksUntil(minute(key.expiresAt!)) };
  return { name: key.status.slice('API_KEY_STATUS_'.length).toLowerCase(), label: text.keyStatus[key.status] };
}

/** Closes a key's rotate form or revoke question (Cancel, Escape), the focus back on the button that opened it. */
function closeQuestion(view: Shown<DeveloperView>, key: ApiKey) {
  const action = view.asking?.action;
  store.patchView(view, () => ({ asking: null }));
  if (action) focus(`[data-key="${CSS.escape(key.id)}"] [data-testid="${action}-key"]`);
}

const escapeCloses = (view: Shown<DeveloperView>, key: ApiKey) => (event: KeyboardEvent) => {
  if (event.key === 'Escape') closeQuestion(view, key);
};

function rotateForm(view: Shown<DeveloperView>, key: ApiKey) {
  const text = t();
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    const grace = new FormData(event.currentTarget as HTMLFormElement).get('grace');
    void rotateKey(view, key, Number(grace ?? DEFAULT_GRACE));
  };
  return html`
    <form class="key-question" data-testid="rotate-form" @submit=${onSubmit} @keydown=${escapeCloses(view, key)}>
      <fieldset class="choices">
        <legend>${text.graceLegend}</legend>
        ${GRACE_CHOICES.map((seconds) => html`
          <label class="choice"><input type="radio" name="grace" value=${seconds} ?checked=${seconds === DEFAULT_GRACE} data-testid=${`grace-${seconds}`}><span>${text.graces[seconds]}</span></label>`)}
      </fieldset>
      <p class="meta">${text.rotateHint}</p>
      <div class="actions">
        <button type="submit" class="primary" ?disabled=${view.busy} data-testid="confirm-rotate">${text.rotateKey(key.name)}</button>
        <button type="button" @click=${() => closeQuestion(view, key)}>${text.cancel}</button>
      </div>
    </form>`;
}

function revokeQuestion(view: Shown<DeveloperView>, key: ApiKey) {
  const text = t();
  return html`
    <div class="key-question danger" data-testid="revoke-question" @keydown=${escapeCloses(view, key)}>
      <p>${text.confirmRevoke(key.name)}</p>
      <div class="actions">
        <button type="button" class="danger" ?disabled=${view.busy} data-testid="confirm-revoke" @click=${() => void revokeKey(view, key)}>${text.revokeKey(key.name)}</button>
        <button type="button" data-testid="cancel-revoke" @click=${() => closeQuestion(view, key)}>${text.cancel}</button>
      </div>
    </div>`;
}

function keyCard(view: Shown<DeveloperView>, key: ApiKey) {
  const text = t();
  const status = statusOf(key);
  const charted = view.selected === key.id;
  const asking = view.asking?.keyId === key.id ? view.asking.action : null;
  const limit = key.rateLimitPerMinute > 0 ? text.callsPerMinute(key.rateLimitPerMinute, number(key.rateLimitPerMinute)) : text.noLimit;
  const named = (label: string) => html`${label}<span class="visually-hidden"> · ${key.name}</span>`;
  return html`
    <li class=${`key${charted ? ' charted' : ''}`} data-key=${key.id} data-testid="key" data-status=${key.status}>
      <div class="key-head">
        <h4 class="key-name" dir="auto">${key.name}</h4>
        <span class=${`status ${status.name}`} data-testid="key-status">${status.label}</span>
      </div>
      <p class="key-facts"><code dir="ltr" translate="no">${key.keyPrefix}…</code><span>${key.scopes.map((scope) => text.scopeShort[scope]).join(' · ')}</span><span>${limit}</span></p>
      <p class="meta">
        <span>${text.createdOn(dateOf(key.createdAt))}</span>
        <span data-testid="key-last-used">${key.lastUsedAt ? text.lastUsed(minute(key.lastUsedAt)) : text.neverUsed}</span>
        ${key.status === 'API_KEY_STATUS_ACTIVE' && key.expiresAt ? html`<span>${text.expiresOn(minute(key.expiresAt))}</span>` : nothing}
      </p>
      <div class="actions">
        <button type="button" aria-pressed=${String(charted)} data-testid="key-usage" @click=${() => void showUsage(view, key.id)}>${named(text.usage)}</button>
        ${key.status === 'API_KEY_STATUS_ACTIVE' ? html`
          <button type="button" aria-expanded=${String(asking === 'rotate')} ?disabled=${view.busy} data-testid="rotate-key" @click=${() => ask(view, key.id, 'rotate')}>${named(text.rotate)}</button>` : nothing}
        ${isLive(key) ? html`
          <button type="button" class="quiet" aria-expanded=${String(asking === 'revoke')} ?disabled=${view.busy} data-testid="revoke-key" @click=${() => ask(view, key.id, 'revoke')}>${named(text.revoke)}</button>` : nothing}
      </div>
      ${asking === 'rotate' ? rotateForm(view, key) : asking === 'revoke' ? revokeQuestion(view, key) : nothing}
    </li>`;
}

function newKeyForm(view: Shown<DeveloperView>) {
  const text = t();
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    void createKey(view, event.currentTarget as HTMLFormElement);
  };
  return html`
    <section class="new-key" aria-labelledby="new-key-heading">
      <h3 id="new-key-heading">${text.newKey}</h3>
      <form data-testid="new-key-form" @submit=${onSubmit}>
        <label class="field"><span>${text.keyName}</span>
          <input type="text" name="name" maxlength="100" autocomplete="off" placeholder=${text.newKeyName(number(view.keys.length + 1))} data-testid="new-key-name"></label>
        <fieldset class="scopes">
          <legend>${text.keyAccess}</legend>
          ${SCOPES.map((scope) => html`<label class="check"><input type="checkbox" name="scope" value=${scope} checked data-testid=${`scope-${scope}`}><span>${text.scopeNames[scope]}</span></label>`)}
        </fieldset>
        <label class="field"><span>${text.rateLimit}</span>
          <input type="number" name="rate" min="1" step="1" inputmode="numeric" dir="ltr" aria-describedby="rate-hint" data-testid="new-key-rate"></label>
        <p class="meta hint" id="rate-hint">${text.rateLimitHint}</p>
        ${view.formError ? html`<p class="form-error" role="alert" data-testid="new-key-error">${view.formError}</p>` : nothing}
        <button type="submit" class="primary" ?disabled=${view.busy} data-testid="create-key">${`+ ${text.createKey}`}</button>
      </form>
    </section>`;
}

function usageSection(view: Shown<DeveloperView>, key: ApiKey, usage: DayUsage[]) {
  const text = t();
  return html`
    <section class="usage" aria-labelledby="usage-heading" data-testid="usage">
      <div class="usage-head">
        <h3 id="usage-heading"><span dir="auto">${text.usageOf(key.name)}</span> <span class="meta">${text.lastDays(number(usage.length))}</span></h3>
        <button type="button" ?disabled=${view.busy} data-testid="refresh-usage" @click=${() => void refresh(view)}>${text.refresh}</button>
      </div>
      ${usageChart(usage, 'usage-chart')}
      <p class="meta hint">${text.daysAreUtc}</p>
    </section>`;
}

export function render(view: Shown<DeveloperView>) {
  const text = t();
  const head = html`
    <p class="eyebrow">${text.developer}</p>
    <h2 tabindex="-1" class="page-title" data-testid="developer-title">${text.apiKeys}</h2>`;
  if (view.access !== 'keys') return html`${head}<p class="meta" data-testid="developer-absent">${view.access === 'scope' ? text.needsDeveloperScope : text.notDeveloper}</p>`;
  const sorted = [...view.keys].sort(newestFirst);
  const live = sorted.filter(isLive);
  const past = sorted.filter((key) => !isLive(key));
  const charted = view.keys.find((key) => key.id === view.selected);
  return html`
    ${head}
    <p class="meta intro">${text.developerIntro}</p>
    ${view.revealed ? secretPanel(view, view.revealed) : nothing}
    ${charted && view.usage ? usageSection(view, charted, view.usage) : nothing}
    <div class="developer-grid">
      <section class="keys" aria-labelledby="keys-heading">
        <h3 id="keys-heading" tabindex="-1">${text.yourKeys}</h3>
        ${live.length === 0 ? html`<p class="meta" data-testid="no-keys">${text.noKeys}</p>` : html`<ul class="key-list" data-testid="keys">${live.map((key) => keyCard(view, key))}</ul>`}
        ${past.length === 0 ? nothing : html`
          <details class="past-keys" data-testid="past-keys">
            <summary>${text.pastKeys(number(past.length))}</summary>
            <ul class="key-list">${past.map((key) => keyCard(view, key))}</ul>
          </details>`}
      </section>
      ${newKeyForm(view)}
    </div>`;
}

export const developerPage = { load, render };
