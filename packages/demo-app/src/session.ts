// The demo's link to the API: its settings (from the server that serves it),
// the SDK's client, and how an action's failure reaches the status line.
import { localStorageTokens, MaqamClient, MaqamError, SignInRequiredError } from '@maqam/sdk';
import { t } from './format.ts';
import { store, type DemoSettings } from './store.ts';
import type { Lang } from './texts.ts';

export const readSettings = async () => (await (await fetch('/demo/config.json')).json()) as DemoSettings;

/** The language chosen here before, else the first of the browser's that the demo speaks, else Arabic. */
export function firstLanguage(): Lang {
  const chosen = localStorage.getItem('maqam-demo:lang');
  if (chosen === 'ar' || chosen === 'en') return chosen;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const primary = tag.toLowerCase().split('-')[0];
    if (primary === 'ar' || primary === 'en') return primary;
  }
  return 'ar';
}

/** The SDK's client, once `connect` has made it. */
export let maqam: MaqamClient;

export function connect(settings: DemoSettings): MaqamClient {
  maqam = new MaqamClient({
    baseUrl: location.origin,
    auth: {
      clientId: settings.clientId,
      redirectUri: `${settings.issuer}/demo/callback`,
      issuer: settings.issuer,
      storage: localStorageTokens(),
      // Another tab signed out, or a refresh was refused: show the signed-out page.
      onTokens: (tokens) => {
        if (!tokens && store.state.user) store.update({ user: null, developer: false });
      },
      onSignedOut: () => say(t().signedOut),
    },
  });
  return maqam;
}

export const say = (status: string) => store.update({ status });

/** Runs a user action; errors become a readable status line, a lost session the sign-in page. */
export async function act(work: () => Promise<void>) {
  say('');
  try {
    await work();
  } catch (error) {
    if (error instanceof SignInRequiredError) {
      store.update({ user: null, developer: false });
      say(t().signedOut);
    } else {
      say(t().error(error instanceof MaqamError ? `${error.message} (${error.code})` : String(error)));
    }
  }
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
