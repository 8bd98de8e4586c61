import { DEFAULT_PAGE_SIZE } from '@maqam/contract';
import { invalidRequest, type ViolationReason } from '../errors.ts';
import type { PageRequest } from './page-cursor.ts';

/**
 * The value of a parameter that may be spelled several ways, and the spelling
 * the client used. Two spellings with different values are a 400.
 */
export function pickAlias<T>(query: Record<string, unknown>, names: readonly string[]): { name: string; value: T } | undefined {
  let picked: { name: string; value: T } | undefined;
  for (const name of names) {
    const value = query[name] as T | undefined;
    if (value === undefined) continue;
    if (picked === undefined) picked = { name, value };
    else if (picked.value !== value) {
      throw invalidRequest({ field: name, reason: 'aliasConflict', params: { other: picked.name } });
    }
  }
  return picked;
}

/**
 * A `types` parameter: a comma-separated subset of `allowed` (spaces around
 * each ignored, repeats once), all of them when absent; anything else is a
 * 400 naming `types` for `reason`.
 */
export function typesParameter<T extends string>(value: string | undefined, allowed: readonly T[], reason: ViolationReason, defaults: readonly T[] = allowed): T[] {
  if (value === undefined) return [...defaults];
  const types = value.split(',').map((type) => type.trim());
  if (types.some((type) => !(allowed as readonly string[]).includes(type))) throw invalidRequest({ field: 'types', reason });
  return [...new Set(types as T[])];
}

/** `page_size` and `page_token` of a list operation, in any of their spellings (contract section 4). */
export function pageRequest(query: Record<string, unknown>, defaultSize = DEFAULT_PAGE_SIZE): PageRequest {
  const size = pickAlias<number>(query, ['page_size', 'pageSize', 'limit']);
  const token = pickAlias<string>(query, ['page_token', 'pageToken']);
  return { size: size?.value ?? defaultSize, ...(token && { token: { field: token.name, value: token.value } }) };
}
