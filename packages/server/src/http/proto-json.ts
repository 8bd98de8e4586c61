import { invalidRequest } from '../errors.ts';

const SNAKE = /_([a-z0-9])/g;

/** No request shape nests deeper than this; deeper values are left for validation to reject. */
const MAX_DEPTH = 16;

/**
 * The proto3 JSON mapping accepts every field in lowerCamelCase and in its
 * original snake_case. This rewrites snake_case members to lowerCamelCase, in
 * place, so one schema validates both; a field given both ways is a 400.
 */
export function normalizeProtoJsonNames(value: unknown, path = '', depth = 0): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) normalizeProtoJsonNames(value[i], `${path}[${i}]`, depth + 1);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    let name = key;
    if (key.includes('_')) {
      name = key.replace(SNAKE, (_, c: string) => c.toUpperCase());
      if (name !== key) {
        if (Object.hasOwn(object, name)) {
          throw invalidRequest({ field: path === '' ? name : `${path}.${name}`, reason: 'duplicateField', params: { other: key } });
        }
        object[name] = object[key];
        delete object[key];
      }
    }
    normalizeProtoJsonNames(object[name], path === '' ? name : `${path}.${name}`, depth + 1);
  }
}
