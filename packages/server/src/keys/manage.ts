/**
 * Key lifecycle: create, list, revoke, rotate, and the state of a key at a
 * given time. The CLI's `keys` command and tests call these; the server only
 * reads keys.
 *
 * States: `pending` until createdAt + activation delay (answers
 * key_not_active), then `active`; `revoked` from revokedAt on (answers
 * key_revoked). Rotation creates a new key on the same account (so quota use
 * carries over) and sets the old key's revokedAt to now + grace; of two
 * rotations of one key racing, the first to record its successor wins and the
 * other revokes the key it made and throws.
 *
 * @module
 */
import type { Plan } from '../plans.js';
import type { KeyRecord, Store } from '../store/types.js';
import { generateKey, hashKey, KEY_PREFIX } from './secret.js';

export type KeyState = 'pending' | 'active' | 'revoked';

/** Default activation delay: 60 s (PRODUCT.md: active 60 s after creation). */
export const DEFAULT_ACTIVATION_DELAY_MS = 60_000;
/** Default rotation grace period: 24 h. */
export const DEFAULT_ROTATION_GRACE_MS = 24 * 3_600_000;

/** The state of `key` at `now`. */
export function keyState(key: KeyRecord, now: number, activationDelayMs: number): KeyState {
  if (key.revokedAt !== null && now >= key.revokedAt) return 'revoked';
  return now < key.createdAt + activationDelayMs ? 'pending' : 'active';
}

export interface CreatedKey {
  /** The secret: shown once, never stored. */
  readonly key: string;
  readonly record: KeyRecord;
}

export interface CreateKeyOptions {
  readonly plan: string;
  readonly name?: string | null;
  /** Plans the key may name (the server's plan table). */
  readonly plans: Readonly<Record<string, Plan>>;
  readonly now?: number;
  /** Internal: the account of the key being rotated. */
  readonly account?: string;
}

/** Creates a key; the secret is returned once. Throws for an unknown plan. */
export async function createKey(store: Store, options: CreateKeyOptions): Promise<CreatedKey> {
  if (!Object.hasOwn(options.plans, options.plan)) {
    throw new KeyError(`unknown plan ${JSON.stringify(options.plan)}; plans: ${Object.keys(options.plans).join(', ')}`);
  }
  for (let attempt = 0; attempt < 5; attempt++) {
    const { key, id } = generateKey();
    const record: KeyRecord = {
      id,
      hash: hashKey(key),
      prefix: KEY_PREFIX,
      plan: options.plan,
      name: options.name ?? null,
      account: options.account ?? id,
      createdAt: options.now ?? Date.now(),
      revokedAt: null,
      replacedBy: null,
    };
    // An id collision (about 1 in 8e17 per pair) only costs a retry.
    if (await store.insertKey(record)) return { key, record };
  }
  throw new KeyError('could not allocate a unique key id');
}

/** Revokes a key now. Throws when there is no such key. */
export async function revokeKey(store: Store, id: string, now = Date.now()): Promise<KeyRecord> {
  if (!(await store.revokeKey(id, now))) throw new KeyError(`no key with id ${JSON.stringify(id)}`);
  return (await store.getKey(id))!;
}

/**
 * Rotates a key: a new key on the same plan and account; the old one keeps
 * working for `graceMs`, then answers key_revoked.
 */
export async function rotateKey(
  store: Store,
  id: string,
  options: { readonly graceMs?: number; readonly now?: number; readonly plans: Readonly<Record<string, Plan>> },
): Promise<{ created: CreatedKey; old: KeyRecord }> {
  const now = options.now ?? Date.now();
  const old = await store.getKey(id);
  if (old === null) throw new KeyError(`no key with id ${JSON.stringify(id)}`);
  if (old.revokedAt !== null && old.revokedAt <= now) throw new KeyError(`key ${id} is revoked`);
  if (old.replacedBy !== null) throw new KeyError(`key ${id} was already rotated: rotate ${old.replacedBy} instead`);
  const plans = Object.hasOwn(options.plans, old.plan) ? options.plans : { ...options.plans, [old.plan]: { quota: 0, period: 'day', ratePerSecond: 0 } as Plan };
  const created = await createKey(store, { plan: old.plan, name: old.name, plans, now, account: old.account });
  await store.revokeKey(id, now + (options.graceMs ?? DEFAULT_ROTATION_GRACE_MS), created.record.id);
  const after = (await store.getKey(id))!;
  if (after.replacedBy !== created.record.id) {
    // Another rotation of this key ran at the same time and recorded its successor first (the
    // store keeps the first): this one's key would be a second live successor nobody knows
    // of. Revoked at once, before anyone has it (it was never shown, and is still pending).
    await store.revokeKey(created.record.id, now);
    throw new KeyError(`key ${id} was rotated at the same time by another command (its successor is ${after.replacedBy}); the key created here, ${created.record.id}, was revoked`);
  }
  return { created, old: after };
}

/** A key-management error with a message meant for the operator. */
export class KeyError extends Error {
  override readonly name = 'KeyError';
}
