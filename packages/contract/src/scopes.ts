import { Type } from 'typebox';

/**
 * The OAuth scopes (contract sections 5 and 13): what a client may ask a
 * user for. A new scope is added here and given its texts in the server's
 * oauth/scopes.ts (the compiler asks for them); nothing else spells the list.
 */
export const SCOPE_NAMES = ['read', 'stream', 'write', 'developer'] as const;
export type Scope = (typeof SCOPE_NAMES)[number];

export const ScopeName = Type.Union(SCOPE_NAMES.map((scope) => Type.Literal(scope)), { title: 'Scope' });
