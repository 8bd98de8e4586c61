import { invalidRequest } from '../errors.ts';

const SNAKE = /_([a-z0-9])/g;

/** No request shape nests deeper than this; deeper values are left for validation to reject. */
const MAX_DEPTH = 16;

/**
 * The proto3 JSON mapping accepts every field in lowerCamelCase and in its
 * original snake_case. This rewrites snake_case members to lowerCamelCase, in
 * place, so one schema validates both; a field given both ways is a 400.
 */
export function normalizeProtoJsonNames(value: unknown): void {
  rename(value, [], 0);
}

/** `path` is where `value` is; it is spelled out only for an error (a batch body has hundreds of members). */
function rename(value: unknown, path: (string | number)[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (value[i] === null || typeof value[i] !== 'object') continue;
      path.push(i);
      rename(value[i], path, depth + 1);
      path.pop();
    }
    return;
  }
  // Only what JSON.parse made: a body a route read its own way (a Batch* body's ids, batch-body.ts) has its names already.
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return;
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    let name = key;
    if (key.includes('_')) {
      name = key.replace(SNAKE, (_, c: string) => c.toUpperCase());
      if (name !== key) {
        if (Object.hasOwn(object, name)) {
          throw invalidRequest({ field: fieldPath([...path, name]), reason: 'duplicateField', params: { other: key } });
        }
        object[name] = object[key];
        delete object[key];
      }
    }
    const member = object[name];
    if (member === null || typeof member !== 'object') continue;
    path.push(name);
    rename(member, path, depth + 1);
    path.pop();
  }
}

/** A field's path as errors name it: `songIdList[2].value`. */
function fieldPath(path: readonly (string | number)[]): string {
  return path.map((step, i) => (typeof step === 'number' ? `[${step}]` : i === 0 ? step : `.${step}`)).join('');
}
