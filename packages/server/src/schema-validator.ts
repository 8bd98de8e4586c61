import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * An ajv with the formats the contract uses (OpenAPI's int32 included): what
 * checks a request (http/validation.ts) and an imported record (import/import.ts)
 * against the contract's TypeBox schemas. `verbose` puts the broken schema on
 * each error (ajv's parentSchema), for violations that show what was expected.
 */
export function createAjv(coerceTypes = false, verbose = false): Ajv {
  const ajv = new Ajv({
    allErrors: true, // report every violation at once, not the first
    verbose, // each error names the schema it broke: a typed id's violation shows the shape it expects
    coerceTypes, // query strings and path parameters arrive as text
    useDefaults: false, // defaults would hide which alias of page_size the client sent
    removeAdditional: false,
    strict: false,
  });
  addFormats(ajv);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  return ajv;
}

/**
 * ajv's errors without those of a failed union's branches: a union that
 * matched no branch reports every branch's errors and then its own `anyOf`
 * error, which says it once. In one pass over the errors and one over each
 * error's path (a failed union's schemaPath ends in `/anyOf`, its branches'
 * go on with `/anyOf/<branch>/`), not every error against every other: that
 * took seconds for tens of thousands of errors (issue 51).
 */
export function withoutUnionBranches(errors: readonly ErrorObject[]): ErrorObject[] {
  const unions = new Set<string>();
  for (const error of errors) if (error.keyword === 'anyOf') unions.add(error.schemaPath);
  if (unions.size === 0) return [...errors];
  return errors.filter((error) => !insideFailedUnion(error.schemaPath, unions));
}

function insideFailedUnion(schemaPath: string, unions: ReadonlySet<string>): boolean {
  const BRANCH = '/anyOf/';
  for (let at = schemaPath.indexOf(BRANCH); at !== -1; at = schemaPath.indexOf(BRANCH, at + 1)) {
    if (unions.has(schemaPath.slice(0, at + BRANCH.length - 1))) return true;
  }
  return false;
}
