// Download my data: the user's own export (GET /v1/users/me/export, the
// GDPR's access and portability) saved as a JSON file, from the library's pages.
import { html } from 'lit-html';
import { t } from '../format.ts';
import { act, maqam, say } from '../session.ts';
import { store } from '../store.ts';
import { icon } from './icons.ts';

/** Hands `body` to the browser as a download named `file`, as a link to it would. */
function saveFile(body: Blob, file: string) {
  const url = URL.createObjectURL(body);
  const link = Object.assign(document.createElement('a'), { href: url, download: file, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked later, not at once: the browser may still be reading the Blob after the click.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

async function downloadMyData() {
  if (store.state.exportingMyData) return;
  store.update({ exportingMyData: true });
  try {
    // Titles in the language on screen. The SDK answers the document parsed: written out again, indented, for a person to read.
    const data = await maqam.library.exportMyData({ locale: store.state.lang });
    const file = `maqam-my-data-${data.exportedAt.slice(0, 10)}.json`;
    saveFile(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }), file);
    say(t().myDataSaved);
  } finally {
    store.update({ exportingMyData: false });
  }
}

/**
 * The button: disabled, saying so, while the export is read. Disabled by
 * `aria-disabled`, not `disabled`: a disabled button drops the keyboard's
 * focus to the page's start, and the person who pressed it would lose their place.
 */
export function downloadMyDataButton() {
  const text = t();
  const busy = store.state.exportingMyData;
  return html`<button type="button" class="download-my-data" data-testid="download-my-data" aria-disabled=${String(busy)}
    @click=${() => void act(downloadMyData)}>${icon('download')} <span>${busy ? text.preparingMyData : text.downloadMyData}</span></button>`;
}
