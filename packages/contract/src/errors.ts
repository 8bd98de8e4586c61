import { Type, type Static } from 'typebox';

/** Every error code of seed section 7, in the order the seed lists them. */
export const ERROR_CODES = [
  'ERROR_CODE_UNSPECIFIED',
  'ERROR_CODE_INVALID_REQUEST',
  'ERROR_CODE_UNAUTHENTICATED',
  'ERROR_CODE_PERMISSION_DENIED',
  'ERROR_CODE_NOT_FOUND',
  'ERROR_CODE_CONFLICT',
  'ERROR_CODE_RATE_LIMITED',
  'ERROR_CODE_INTERNAL',
  'ERROR_CODE_UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
export const ErrorCode = Type.Unsafe<ErrorCode>({
  type: 'string',
  enum: [...ERROR_CODES],
  title: 'ErrorCode',
  description: 'Machine-readable error code; never localized.',
});

export const FieldViolation = Type.Object(
  {
    field: Type.String({
      description:
        'Dotted path of the failing body field with bracketed indexes (songIdList[3].value), the query or path parameter name, or the header name.',
    }),
    description: Type.String({ description: 'Human-readable, localized by Accept-Language.' }),
  },
  { title: 'FieldViolation' },
);
export type FieldViolation = Static<typeof FieldViolation>;

/** Seed `Error`, extended by the contract with `code` and `requestId`. */
export const ErrorBody = Type.Object(
  {
    code: ErrorCode,
    message: Type.String(),
    requestId: Type.Optional(Type.String()),
  },
  { title: 'Error' },
);
export type ErrorBody = Static<typeof ErrorBody>;

/** Seed `ValidationError` (HTTP 400), extended by the contract with `code`, `message` and `requestId`. */
export const ValidationErrorBody = Type.Object(
  {
    code: ErrorCode,
    message: Type.String(),
    requestId: Type.Optional(Type.String()),
    violations: Type.Array(FieldViolation, { minItems: 1 }),
  },
  { title: 'ValidationError' },
);
export type ValidationErrorBody = Static<typeof ValidationErrorBody>;
