// Shows and films as the Watch pages draw them: poster cards, the age
// rating's badge, the header of a title's page (poster over its backdrop),
// its cast, and the page of a title the viewer cannot have.
import type { AgeRating, CastMember, Movie, Show, VideoTitle } from '@maqam/sdk';
import { html, nothing, type TemplateResult } from 'lit-html';
import { listSeparator, t, year } from '../format.ts';
import { link } from '../router.ts';
import { iso } from '../texts.ts';

/** A picture of the catalog, with its size. */
type Image = Show['artwork'][number];

/** The title's artwork of a shape: a poster stands (2:3), a backdrop or still lies (16:9). */
export function artworkOf(images: readonly Image[], shape: 'poster' | 'wide'): Image | undefined {
  return images.find((image) => (shape === 'poster' ? image.height > image.width : image.width > image.height)) ?? images[0];
}

/** An image at its own proportions, or a blank of the class's shape when there is none. */
export function picture(image: Image | undefined, className: string, alt = '') {
  return image
    ? html`<img src=${image.url} alt=${alt} class=${className} loading="lazy" width=${image.width} height=${image.height}>`
    : html`<div class=${`${className} blank`} role="img" aria-label=${alt}></div>`;
}

/** The age rating's badge ("13+"), its meaning in words on hover and to a screen reader; nothing for an unrated title. */
export function ageBadge(rating: AgeRating | undefined) {
  if (!rating) return nothing;
  const text = t();
  return html`<abbr class="rating" dir="ltr" title=${text.ageRatingsLong[rating]} data-testid="age-rating">${text.ageRatings[rating]}</abbr>`;
}

/** A year as the page writes its digits. */
export const yearOf = (title: VideoTitle) => (title.show ? year(String(title.show.releaseYear)) : year(title.movie!.releaseDate));

/** The catalog's genre words in the page's language. */
export const genreNames = (genres: readonly string[]) => genres.map((genre) => t().genres[genre] ?? genre);

export const titleLink = (title: VideoTitle) =>
  link(title.show ? { view: 'show', id: title.show.id.value } : { view: 'movie', id: title.movie!.id.value });

/** A show's or film's card: its poster with its age rating on it, its name (up to two lines), kind and year. */
export function posterCard(title: VideoTitle) {
  const text = t();
  const item: Show | Movie = title.show ?? title.movie!;
  return html`
    <a href=${titleLink(title)} class="card title-card" data-testid=${title.show ? 'show-link' : 'movie-link'} data-title=${item.id.value}>
      ${picture(artworkOf(item.artwork, 'poster'), 'poster')}
      <span class="card-title" dir="auto">${item.title.value}</span>
      <span class="meta">${`${title.show ? text.kindShow : text.kindMovie} · ${yearOf(title)}`}</span>
      ${ageBadge(item.ageRating)}
    </a>`;
}

/** Names in a list, each isolated (an English name in an Arabic list keeps its order, and the reverse). */
export const names = (cast: readonly CastMember[]) => cast.map((member) => iso(member.name.value)).join(listSeparator());

/** The leads first, then the others, each group in the catalog's order. */
export const leadsFirst = (cast: readonly CastMember[]) => [...cast].sort((a, b) => Number(b.isLead) - Number(a.isLead));

/**
 * A title page's header: its poster, over its backdrop faded into the page;
 * what it is, its name (and its original name where the language shows
 * another), its facts and age rating, its leads and description, and what
 * the page adds (a film's languages).
 */
export function titleHeader(options: { item: Show | Movie; eyebrow: string; facts: string[]; testId: string; extra?: TemplateResult }) {
  const { item } = options;
  const text = t();
  const leads = item.cast.filter((member) => member.isLead);
  const backdrop = artworkOf(item.artwork, 'wide');
  return html`
    <header class="profile title-profile">
      ${backdrop && backdrop.width > backdrop.height ? html`<img src=${backdrop.url} alt="" class="backdrop" width=${backdrop.width} height=${backdrop.height}>` : nothing}
      ${picture(artworkOf(item.artwork, 'poster'), 'poster large')}
      <div>
        <p class="eyebrow">${options.eyebrow}</p>
        <h2 tabindex="-1" dir="auto" data-testid=${options.testId}>${item.title.value}</h2>
        ${item.title.originalValue !== item.title.value ? html`<p class="original" dir="auto" data-testid="original-title">${item.title.originalValue}</p>` : nothing}
        <p class="meta title-facts"><span>${options.facts.filter(Boolean).join(' · ')}</span>${item.ageRating ? ageBadge(item.ageRating) : html`<span class="rating unrated">${text.notRated}</span>`}</p>
        ${leads.length > 0 ? html`<p class="starring">${text.starring(names(leads))}</p>` : nothing}
        ${item.description ? html`<p class="bio" dir="auto">${item.description.value}</p>` : nothing}
        ${options.extra ?? nothing}
      </div>
    </header>`;
}

/** Who is in it and who made it, leads first; each a link to the titles a search finds by their name. */
export function castSection(cast: readonly CastMember[]) {
  if (cast.length === 0) return nothing;
  const text = t();
  return html`
    <section aria-labelledby="cast-heading" class="shelf">
      <h3 id="cast-heading">${text.cast}</h3>
      <ul class="cast" data-testid="cast">${leadsFirst(cast).map((member) => html`
        <li data-lead=${String(member.isLead)}>
          <a href=${link({ view: 'search', q: member.name.value })} class="person" title=${text.titlesWith(member.name.value)}>
            ${member.profileImageUrl
              ? html`<img src=${member.profileImageUrl} alt="" class="portrait face" loading="lazy" width="300" height="300">`
              : html`<span class="portrait face blank"></span>`}
            <span class="person-text">
              <span class="card-title" dir="auto">${member.name.value}</span>
              ${member.role ? html`<span class="meta role" dir="auto">${member.role}</span>` : nothing}
            </span>
          </a>
        </li>`)}
      </ul>
    </section>`;
}

/** A title that is not there for this viewer (unknown, withdrawn, or above their parental cap: the API says 404 to all three). */
export function titleMissing() {
  const text = t();
  return html`
    <section class="hero" data-testid="title-missing">
      <h2 tabindex="-1">${text.titleMissing}</h2>
      <p>${text.titleMissingHint}</p>
      <a href=${link({ view: 'watch' })} class="button primary">${text.browseTitles}</a>
    </section>`;
}
