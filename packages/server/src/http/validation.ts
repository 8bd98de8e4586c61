import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { DomainError, MAX_VIOLATIONS, type Violation, type ViolationReason } from '../errors.ts';
import { createAjv, withoutUnionBranches } from '../schema-validator.ts';
import { BatchIds } from './batch-body.ts';

const bodyAjv = createAjv(false, true);
const textAjv = createAjv(true);

/**
 * Bodies are JSON and keep their types ("1" is not a number); query strings
 * and path parameters are text and are coerced to the schema's types. A
 * body reaches its validator with its lists within their declared sizes
 * (http/json-body.ts), so what ajv walks, reporting every violation, is
 * bounded by the declared limits.
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv.compile(schema) : textAjv.compile(schema)) as ReturnType<FastifySchemaCompiler<object>>;

/**
 * The validators of a scope whose JSON parser reads Batch* bodies from
 * their bytes (batch-body.ts): a body the reader took is passed as it is,
 * since the reader accepts only bodies its route's schema accepts and ajv
 * would only walk them again; anything else is validated as everywhere.
 */
export const batchValidatorCompiler: FastifySchemaCompiler<object> = (route) =>
  (route.httpPart === 'body' ? acceptingReadBatchIds(bodyAjv.compile(route.schema)) : validatorCompiler(route)) as ReturnType<FastifySchemaCompiler<object>>;

function acceptingReadBatchIds(validate: ValidateFunction): ValidateFunction {
  const check = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    if (data instanceof BatchIds) {
      check.errors = null;
      return true;
    }
    const valid = validate(data, context);
    check.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  // Fastify passes the request as the parent of a validator that has one (ajv's), as it does to the one wrapped.
  check.schemaEnv = validate.schemaEnv;
  return check;
}

/** `/songIdList/3/value` → `songIdList[3].value` (contract section 1). */
export function pointerToFieldPath(pointer: string): string {
  let path = '';
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(segment) ? `[${segment}]` : path === '' ? segment : `.${segment}`;
  }
  return path;
}

/** The reason a value of the wrong JSON type is refused for, by the type the schema wants. */
const TYPE_REASONS: Record<string, ViolationReason> = {
  integer: 'notInteger', number: 'notNumber', string: 'notString', boolean: 'notBoolean', array: 'notArray', object: 'notObject', null: 'notNull',
};

/** The id a typed id's violation shows as an example, by the id schema's title (contract: SongID and its kin). */
const TYPED_ID_EXAMPLES: Record<string, string> = { SongID: 'song-1', AlbumID: 'album-1', ArtistID: 'artist-1', PlaylistID: 'playlist-1' };

/**
 * An id that is not the object the contract types it as (a bare string, say):
 * the violation shows the shape expected, `{"value":"song-1"}` (contract section 13).
 */
function typedIdExample(error: ErrorObject): string | undefined {
  const title = (error.parentSchema as { title?: unknown } | undefined)?.title;
  const example = typeof title === 'string' ? TYPED_ID_EXAMPLES[title] : undefined;
  return example === undefined ? undefined : JSON.stringify({ value: example });
}

function toViolation(error: ErrorObject, context: string): Violation {
  const base = pointerToFieldPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  const field = (suffix?: string) => {
    const path = suffix === undefined ? base : base === '' ? suffix : `${base}.${suffix}`;
    return path === '' ? (context === 'body' ? 'body' : context) : path;
  };
  switch (error.keyword) {
    case 'required':
      return { field: field(String(params.missingProperty)), reason: 'required' };
    case 'type': {
      const example = params.type === 'object' ? typedIdExample(error) : undefined;
      if (example !== undefined) return { field: field(), reason: 'typedId', params: { example } };
      // A schema of several types (integer or string) names the first: the one the contract writes first.
      return { field: field(), reason: TYPE_REASONS[String(params.type).split(',')[0]!] ?? 'invalid' };
    }
    case 'enum':
      return { field: field(), reason: 'notOneOf', params: { allowed: (params.allowedValues as unknown[]).map(String).join(', ') } };
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
    case 'minimum':
    case 'maximum':
      return { field: field(), reason: error.keyword, params: { limit: Number(params.limit) } };
    case 'pattern':
      return { field: field(), reason: 'pattern' };
    default:
      return { field: field(), reason: 'invalid' };
  }
}

/**
 * Turns ajv's errors into one 400 with a violation per distinct field, the
 * first MAX_VIOLATIONS of them. The list is passed whole, never spread into
 * arguments: 128,001 of them overflowed the stack inside the error handler,
 * which Fastify answered with a 500 of its own shape (issue 51).
 */
export function validationErrorToApiError(errors: readonly ErrorObject[], context: string): DomainError {
  const violations: Violation[] = [];
  const seen = new Set<string>();
  for (const error of withoutUnionBranches(errors)) {
    const violation = toViolation(error, context);
    const key = `${violation.field}\u0000${violation.reason}`;
    if (!seen.has(key)) {
      seen.add(key);
      violations.push(violation);
      if (violations.length === MAX_VIOLATIONS) break;
    }
  }
  if (violations.length === 0) violations.push({ field: context, reason: 'invalid' });
  return new DomainError('invalidRequest', { violations });
}
