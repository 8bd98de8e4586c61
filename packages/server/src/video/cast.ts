import type { CastMemberRecord } from '@maqam/contract';
import { localizedJson } from '../catalog/render.ts';

/** A cast member as a title's row keeps it (a JSON array of these): texts by lower-cased tag. */
interface StoredCastMember {
  readonly id: string;
  readonly name: Record<string, string>;
  readonly language: string;
  readonly role: string;
  readonly image: string;
  readonly lead: boolean;
}

const quote = JSON.stringify as (value: string) => string;

/** The JSON column of a title's cast; a member's name is in the title's language unless it says otherwise. */
export function storedCast(members: readonly CastMemberRecord[] | undefined, titleLanguage: string): string {
  return JSON.stringify((members ?? []).map((member): StoredCastMember => ({
    id: member.id,
    name: Object.fromEntries(Object.entries(member.name).map(([tag, text]) => [tag.toLowerCase(), text])),
    language: (member.originalLanguage ?? titleLanguage).toLowerCase(),
    role: member.role ?? '',
    image: member.profileImageUrl ?? '',
    lead: member.isLead ?? false,
  })));
}

/** The names a cast is found by in search: each member's, in every language. */
export function castNames(json: string): string[][] {
  return (JSON.parse(json) as StoredCastMember[]).map((member) => Object.values(member.name));
}

/** `[CastMember,...]` as the contract writes it, names in the chain's language; a server-relative image resolved against `publicUrl`. */
export function renderCast(json: string, chain: readonly string[], publicUrl: string): string {
  const members = JSON.parse(json) as StoredCastMember[];
  const image = (url: string) => quote(url.startsWith('/') ? publicUrl + url : url);
  return `[${members.map((m) =>
    `{"id":${quote(m.id)},"name":${localizedJson(m.name, m.language, chain)},"role":${quote(m.role)},"profileImageUrl":${image(m.image)},"isLead":${m.lead}}`,
  ).join(',')}]`;
}
