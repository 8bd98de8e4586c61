export * from './errors.ts';
export * from './catalog.ts';
export * from './import.ts';
export * from './keys.ts';
export * from './accounts.ts';
