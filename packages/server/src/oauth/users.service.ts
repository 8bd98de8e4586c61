import { AGE_RATINGS, type AgeRating } from '@maqam/contract';
import { isAgeRating } from '../video/age-rating.ts';
import { randomUUID } from 'node:crypto';
import type { Db } from '../storage/database.ts';
import { createUsersRepo } from './users.repo.ts';
import { decoyHash, hashPassword, verifyPassword } from './passwords.ts';

export interface User {
  readonly id: string;
  readonly username: string;
}

/** A user as operators see them. */
export interface UserSummary extends User {
  readonly createdAt: string;
  /** When the user was disabled; null while they may sign in. */
  readonly disabledAt: string | null;
  /** Sign-ins (grants) not revoked. */
  readonly activeSignIns: number;
}

/** The roles an operator grants (contract section 16): a developer manages API keys of their own. */
export const USER_ROLES = ['developer'] as const;
export type UserRole = (typeof USER_ROLES)[number];

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

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new UserInputError(`a password is ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
  }
}

export function createUsersService(db: Db, clock: () => number = Date.now) {
  const repo = createUsersRepo(db);
  /** The user by username (any case), or a UserInputError naming it. */
  async function find(username: string): Promise<User> {
    const row = username.includes('\u0000') ? undefined : await repo.byKey(usernameKey(username));
    if (!row) throw new UserInputError(`no user "${username}"`);
    return { id: row.id, username: row.username };
  }

  /** Ends every sign-in of the user: their access and refresh tokens are refused from the next request on. */
  const revokeSignIns = (userId: string, now: number) => repo.revokeSignIns(userId, now);

  return {
    find,

    async create(username: string, password: string): Promise<User> {
      if (!USERNAME.test(username)) {
        throw new UserInputError('a username is 3 to 64 letters, digits, ".", "-" or "_"');
      }
      checkPassword(password);
      const key = usernameKey(username);
      const user = { id: randomUUID(), username };
      const inserted = await repo.insert({ ...user, username_key: key, password_hash: await hashPassword(password), created_at: clock() });
      if (!inserted) throw new UserInputError(`the username "${username}" is taken`);
      return user;
    },

    async list(): Promise<UserSummary[]> {
      const rows = await repo.list();
      return rows.map((row) => ({
        id: row.id,
        username: row.username,
        createdAt: new Date(Number(row.created_at)).toISOString(),
        disabledAt: row.disabled_at === null ? null : new Date(Number(row.disabled_at)).toISOString(),
        activeSignIns: Number(row.active ?? 0),
      }));
    },

    /**
     * The user can no longer sign in, and every sign-in they have ends on the
     * next request on every node (tokens are checked against the database).
     * Idempotent; returns how many sign-ins ended.
     */
    async disable(username: string): Promise<{ user: User; signInsEnded: number }> {
      const user = await find(username);
      const now = clock();
      await repo.disable(user.id, now);
      return { user, signInsEnded: await revokeSignIns(user.id, now) };
    },

    /** Deletes the user for good: their sign-ins end, and their library, history and change feed go with them. */
    async delete(username: string): Promise<User> {
      const user = await find(username);
      await repo.deleteWithEverything(user.id);
      return user;
    },

    /**
     * Sets the user's parental cap (contract section 15): titles rated above
     * it are hidden from them on every surface from their next request on
     * (tokens are checked against the users table), and a stream of one in
     * progress stops at its next key. `none` clears it.
     */
    async setMaxAgeRating(username: string, rating: string): Promise<{ user: User; maxAgeRating: AgeRating | null }> {
      const cap = rating === 'none' ? null : rating;
      if (cap !== null && !isAgeRating(cap)) throw new UserInputError(`the rating must be one of ${AGE_RATINGS.join(', ')} or none`);
      const user = await find(username);
      await repo.setMaxAgeRating(user.id, cap);
      return { user, maxAgeRating: cap };
    },

    /** Grants (or takes back) a role; idempotent. Answers the user's roles after it. */
    async setRole(username: string, role: string, granted: boolean): Promise<{ user: User; roles: string[] }> {
      if (!(USER_ROLES as readonly string[]).includes(role)) throw new UserInputError(`the role must be one of ${USER_ROLES.join(', ')}`);
      const user = await find(username);
      const roles = new Set(await repo.roles(user.id));
      if (granted) roles.add(role);
      else roles.delete(role);
      await repo.setRoles(user.id, [...roles]);
      return { user, roles: [...roles].sort() };
    },

    /** Whether the user (by id) holds the role, read from the database: an operator's grant or revocation counts from the next request. */
    async hasRole(userId: string, role: UserRole): Promise<boolean> {
      return (await repo.roles(userId)).includes(role);
    },

    /** The user may sign in again; the sign-ins that disabling ended stay ended. */
    async enable(username: string): Promise<User> {
      const user = await find(username);
      await repo.enable(user.id);
      return user;
    },

    /** A new password; every sign-in made with the old one ends (whoever knew it is signed out). */
    async setPassword(username: string, password: string): Promise<{ user: User; signInsEnded: number }> {
      checkPassword(password);
      const user = await find(username);
      const now = clock();
      await repo.setPasswordHash(user.id, await hashPassword(password));
      return { user, signInsEnded: await revokeSignIns(user.id, now) };
    },

    /**
     * The user, if the password is theirs. An unknown username costs the same
     * scrypt work as a wrong password, so timing does not tell which it was.
     * A disabled user is refused.
     */
    async authenticate(username: string, password: string): Promise<User | null> {
      // No stored name holds NUL, and PostgreSQL cannot even compare one: no such user, on either database.
      const row = username.includes('\u0000') ? undefined : await repo.byKey(usernameKey(username));
      const matches = await verifyPassword(password.slice(0, MAX_PASSWORD_LENGTH), row?.password_hash ?? (await decoyHash()));
      // A disabled user is refused after the same work, like a wrong password.
      return row && matches && row.disabled_at === null ? { id: row.id, username: row.username } : null;
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
