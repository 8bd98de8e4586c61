import type { CastMemberRecord } from '@maqam/contract';
import type { TitleTemplateWriter } from './title-template.ts';

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

/** `[CastMember,...]` as the contract writes it, each name chosen per request, a server-relative image resolved per request (title-template.ts). */
export function castTemplate(writer: TitleTemplateWriter, json: string): TitleTemplateWriter {
  const members = JSON.parse(json) as StoredCastMember[];
  writer.literal('[');
  members.forEach((m, i) => {
    writer.literal(`${i > 0 ? ',' : ''}{"id":${quote(m.id)},"name":`).localized(m.name, m.language);
    writer.literal(`,"role":${quote(m.role)},"profileImageUrl":`).url(m.image).literal(`,"isLead":${m.lead}}`);
  });
  return writer.literal(']');
}
