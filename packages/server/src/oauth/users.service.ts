import { randomUUID } from 'node:crypto';
import type { Db } from '../storage/database.ts';
import { decoyHash, hashPassword, verifyPassword } from './passwords.ts';

export interface User {
  readonly id: string;
  readonly username: string;
}

/** Letters and digits of any script (Arabic usernames too), dot, dash, underscore. */
const USERNAME = /^[\p{L}\p{N}._-]{3,64}$/u;
export const MIN_PASSWORD_LENGTH = 8;
const MAX_PASSWORD_LENGTH = 1024;

export class UserInputError extends Error {
  override name = 'UserInputError';
}

export function usernameKey(username: string): string {
  return username.normalize('NFKC').toLowerCase();
}

export function createUsersService(db: Db, clock: () => number = Date.now) {
  return {
    async create(username: string, password: string): Promise<User> {
      if (!USERNAME.test(username)) {
        throw new UserInputError('a username is 3 to 64 letters, digits, ".", "-" or "_"');
      }
      if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
        throw new UserInputError(`a password is ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
      }
      const key = usernameKey(username);
      const user = { id: randomUUID(), username };
      const inserted = await db
        .insertInto('users')
        .values({ ...user, username_key: key, password_hash: await hashPassword(password), created_at: clock() })
        .onConflict((oc) => oc.column('username_key').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) throw new UserInputError(`the username "${username}" is taken`);
      return user;
    },

    /**
     * The user, if the password is theirs. An unknown username costs the same
     * scrypt work as a wrong password, so timing does not tell which it was.
     */
    async authenticate(username: string, password: string): Promise<User | null> {
      // No stored name holds NUL, and PostgreSQL cannot even compare one: no such user, on either database.
      const row = username.includes('\u0000')
        ? undefined
        : await db.selectFrom('users').select(['id', 'username', 'password_hash']).where('username_key', '=', usernameKey(username)).executeTakeFirst();
      const matches = await verifyPassword(password.slice(0, MAX_PASSWORD_LENGTH), row?.password_hash ?? (await decoyHash()));
      return row && matches ? { id: row.id, username: row.username } : null;
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
