// Words and numbers as the page's language writes them: its texts, its
// digits (Arabic-Indic in Arabic), lengths, years and credits.
import type { Song } from '@maqam/sdk';
import { store } from './store.ts';
import { iso, TEXT, type Texts } from './texts.ts';

export const t = (): Texts => TEXT[store.state.lang];

const digits = () => (store.state.lang === 'ar' ? 'ar-EG' : 'en');

/** One formatter per language and style: building one costs more than formatting with it, and a page formats hundreds. */
const formatters = new Map<string, Intl.NumberFormat>();
function formatter(options: Intl.NumberFormatOptions = {}): Intl.NumberFormat {
  const key = `${digits()} ${JSON.stringify(options)}`;
  let format = formatters.get(key);
  if (!format) formatters.set(key, (format = new Intl.NumberFormat(digits(), options)));
  return format;
}

export const number = (n: number) => formatter().format(n);
export const compact = (n: number) => formatter({ notation: 'compact', maximumFractionDigits: 1 }).format(n);

export function clock(ms = 0): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${number(Math.floor(seconds / 60))}:${formatter({ minimumIntegerDigits: 2 }).format(seconds % 60)}`;
}

export const year = (date: string) => formatter({ useGrouping: false }).format(Number(date.slice(0, 4)));

/** Names in a list, as the language separates them. */
export const listSeparator = () => (store.state.lang === 'ar' ? '، ' : ', ');

/** Credits as one line, each name isolated: "Clara Lane، وليد منصور" keeps each name's own direction inside the other's. */
export const artistNames = (refs: Song['artists']) => refs.map((a) => iso(a.name.value)).join(listSeparator());

/** A length as people say it: "1 hr, 32 min", not "92:08". */
export function longDuration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  const DurationFormat = (Intl as unknown as { DurationFormat?: new (locale: string, options: object) => { format(duration: object): string } }).DurationFormat;
  if (!DurationFormat || minutes < 1) return clock(ms);
  return new DurationFormat(digits(), { style: 'short' }).format(minutes >= 60 ? { hours: Math.floor(minutes / 60), minutes: minutes % 60 } : { minutes });
}

/** A day as the language writes it: "13 April 2021", "١٣ أبريل ٢٠٢١". Catalog dates are days, so read and written in UTC. */
export const day = (date: string) =>
  new Intl.DateTimeFormat(digits(), { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));

/** Languages by their BCP 47 tags, named in the page's language ("العربية، الإنجليزية"). */
export function languageNames(tags: readonly string[]): string {
  const names = new Intl.DisplayNames([store.state.lang], { type: 'language' });
  return tags.map((tag) => {
    try {
      return names.of(tag) ?? tag;
    } catch {
      return tag;
    }
  }).join(listSeparator());
}

/** One date formatter per language and style, as for numbers. */
const dateFormatters = new Map<string, Intl.DateTimeFormat>();
function dateFormatter(options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${digits()} ${JSON.stringify(options)}`;
  let format = dateFormatters.get(key);
  if (!format) dateFormatters.set(key, (format = new Intl.DateTimeFormat(digits(), options)));
  return format;
}

/** A moment to the minute, in the reader's time zone: "Nov 28, 2026, 1:31 PM", "٢٨ نوفمبر ٢٠٢٦، ١:٣١ م". */
export const minute = (time: string) =>
  dateFormatter({ day: 'numeric', month: 'short', year: 'numeric', hour: 'numeric', minute: '2-digit' }).format(new Date(time));

/** The day of a moment, in the reader's time zone: "Nov 28, 2026", "٢٨ نوفمبر ٢٠٢٦". */
export const dateOf = (time: string) => dateFormatter({ day: 'numeric', month: 'short', year: 'numeric' }).format(new Date(time));

/** A day (YYYY-MM-DD, UTC) as a chart's axis names it: "Nov 28", "٢٨ نوفمبر". */
export const shortDay = (date: string) => dateFormatter({ day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));
