export * from './errors.ts';
export * from './catalog.ts';
export * from './import.ts';
export * from './keys.ts';
export * from './accounts.ts';
export * from './auth.ts';
export * from './streaming.ts';
export * from './search.ts';
