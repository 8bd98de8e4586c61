// A key's calls day by day, drawn by the page: stacked bars by status class
// (successful, client errors, rate limited) over the days of a usage answer.
// Days flow as the page reads (right to left in Arabic); numbers and dates
// are the page's. Two SVGs side by side, the axis's and the bars', so the
// bars take the width there is while the text keeps its size: bars are
// placed in percentages of their SVG, heights in pixels.
import type { ApiKeyUsage } from '@maqam/sdk';
import { html, nothing, svg } from 'lit-html';
import { number, shortDay, t } from '../format.ts';
import { store } from '../store.ts';

export interface DayUsage {
  /** YYYY-MM-DD, UTC. */
  date: string;
  /** Answered, not 4xx (a 5xx, rare, counts here: the contract counts 4xx and 429 apart, not 5xx). */
  successful: number;
  /** Answered 4xx other than 429. */
  clientErrors: number;
  /** Answered 429. */
  rateLimited: number;
}

const DAY_MS = 24 * 3600 * 1000;
const CLASSES = [['successful', 'ok'], ['clientErrors', 'client'], ['rateLimited', 'limited']] as const;
const callsOf = (day: DayUsage) => day.successful + day.clientErrors + day.rateLimited;

/** Every day of the answer's span, oldest first, its operations summed into the three classes; a day without calls is zeros. */
export function dailyUsage(answer: ApiKeyUsage): DayUsage[] {
  const days = new Map<string, DayUsage>();
  const last = Date.parse(`${answer.to}T00:00:00Z`);
  for (let ms = Date.parse(`${answer.from}T00:00:00Z`); ms <= last; ms += DAY_MS) {
    const date = new Date(ms).toISOString().slice(0, 10);
    days.set(date, { date, successful: 0, clientErrors: 0, rateLimited: 0 });
  }
  for (const row of answer.usage) {
    const day = days.get(row.date);
    if (!day) continue;
    // clientErrors counts the 429s too; each call lands in one class.
    day.successful += row.calls - row.clientErrors;
    day.clientErrors += row.clientErrors - row.rateLimited;
    day.rateLimited += row.rateLimited;
  }
  return [...days.values()];
}

export function usageTotals(days: readonly DayUsage[]): DayUsage & { calls: number } {
  const totals = { date: '', successful: 0, clientErrors: 0, rateLimited: 0, calls: 0 };
  for (const day of days) {
    totals.successful += day.successful;
    totals.clientErrors += day.clientErrors;
    totals.rateLimited += day.rateLimited;
    totals.calls += callsOf(day);
  }
  return totals;
}

/** The axis's top and its ticks: steps of 1, 2 or 5 times a power of ten, three or four of them, whole numbers. */
function axisOf(max: number): { top: number; ticks: number[] } {
  if (max <= 0) return { top: 1, ticks: [0] };
  const rough = max / 3;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power);
  const top = step * Math.ceil(max / step);
  return { top, ticks: Array.from({ length: top / step + 1 }, (_, i) => i * step) };
}

const HEIGHT = 184;
const TOP = 12;
/** Room under the bars for the days' labels. */
const AXIS = 26;
const PLOT = HEIGHT - TOP - AXIS;
/** A day's label every week, counted back from the last day. */
const LABEL_EVERY = 7;

const percent = (value: number) => `${value.toFixed(3)}%`;

/** The chart of `days` (oldest first), its totals in a legend, and a table of the days with calls for screen readers (in a hidden box: a table is never narrower than its text). */
export function usageChart(days: readonly DayUsage[], testId: string) {
  const text = t();
  const rtl = store.state.lang === 'ar';
  const totals = usageTotals(days);
  const { top, ticks } = axisOf(Math.max(0, ...days.map(callsOf)));
  const y = (calls: number) => TOP + PLOT - (calls / top) * PLOT;
  const slot = 100 / days.length;
  // Oldest at the start of the line: the left in English, the right in Arabic.
  const place = (index: number) => (rtl ? days.length - 1 - index : index);
  const counts = (day: DayUsage) => [number(day.successful), number(day.clientErrors), number(day.rateLimited)] as const;

  const bars = days.map((day, index) => {
    let below = 0;
    const segments = CLASSES.map(([key, name]) => {
      const calls = day[key];
      if (calls === 0) return nothing;
      const segment = svg`<rect class=${`segment ${name}`} x=${percent((place(index) + 0.16) * slot)} width=${percent(slot * 0.68)} y=${y(below + calls)} height=${y(below) - y(below + calls)}></rect>`;
      below += calls;
      return segment;
    });
    // The whole column answers the pointer with the day's counts.
    return svg`<g class="day" data-date=${day.date}><title>${text.dayUsage(shortDay(day.date), ...counts(day))}</title><rect class="column" x=${percent(place(index) * slot)} width=${percent(slot)} y=${TOP} height=${PLOT}></rect>${segments}</g>`;
  });
  const dayLabels = days.map((day, index) => {
    if ((days.length - 1 - index) % LABEL_EVERY !== 0) return nothing;
    const at = place(index);
    // The labels at the ends keep inside the chart.
    const [x, anchor] = at === days.length - 1 ? ['100%', 'end'] : at === 0 ? ['0', 'start'] : [percent((at + 0.5) * slot), 'middle'];
    // Every other week's label gives way on a phone.
    const minor = ((days.length - 1 - index) / LABEL_EVERY) % 2 === 1;
    return svg`<text class=${minor ? 'minor' : nothing} x=${x} y=${HEIGHT - 6} text-anchor=${anchor}>${shortDay(day.date)}</text>`;
  });
  const summary = text.usageSummary(number(days.length), number(totals.calls), ...counts(totals));
  const legend = CLASSES.map(([key, name]) => html`<li><span class=${`swatch ${name}`}></span>${text[key]} <strong>${number(totals[key])}</strong></li>`);
  const withCalls = days.filter((day) => callsOf(day) > 0);

  return html`
    <div class="usage-chart">
      <div class="chart-plot" role="img" aria-label=${summary} data-testid=${testId} data-calls=${totals.calls}>
        <svg class="y-axis" width="100%" height=${HEIGHT}>
          ${ticks.map((tick) => svg`<text x=${rtl ? '4' : '100%'} dx=${rtl ? 0 : -6} y=${y(tick) + 4} text-anchor=${rtl ? 'start' : 'end'}>${number(tick)}</text>`)}
        </svg>
        <svg class="bars" width="100%" height=${HEIGHT}>
          ${ticks.map((tick) => svg`<line class=${tick === 0 ? 'baseline' : 'grid'} x1="0" x2="100%" y1=${y(tick)} y2=${y(tick)}></line>`)}
          ${bars}
          ${dayLabels}
        </svg>
        ${totals.calls === 0 ? html`<p class="chart-empty">${text.noCalls}</p>` : nothing}
      </div>
      <ul class="legend">
        <li class="total">${text.totalCalls} <strong data-testid="usage-total">${number(totals.calls)}</strong></li>
        ${legend}
      </ul>
      <div class="visually-hidden"><table>
        <caption>${text.usageTableCaption}</caption>
        <thead><tr><th scope="col">${text.day}</th>${CLASSES.map(([key]) => html`<th scope="col">${text[key]}</th>`)}</tr></thead>
        <tbody>${withCalls.length === 0
          ? html`<tr><td colspan="4">${text.noCalls}</td></tr>`
          : withCalls.map((day) => html`<tr><th scope="row">${shortDay(day.date)}</th>${counts(day).map((count) => html`<td>${count}</td>`)}</tr>`)}</tbody>
      </table></div>
    </div>`;
}
