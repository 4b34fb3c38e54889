/**
 * `ipintel keys create|list|revoke|rotate`: key management against the same
 * default store as `ipintel serve`. `create` and `rotate` print the new key on
 * stdout (alone, so `KEY=$(ipintel keys create --plan free)` works) and the
 * explanation on stderr; the key is never shown again.
 *
 * @module
 */
import { createKey, DEFAULT_ACTIVATION_DELAY_MS, DEFAULT_ROTATION_GRACE_MS, keyState, revokeKey, rotateKey } from '../keys/manage.js';
import { periodAt, resolvePlans, type Plan } from '../plans.js';
import { defaultStoreSpec, openStore } from '../store/open.js';
import type { KeyRecord, Store } from '../store/types.js';
import { parseDuration, parseFlags, str, UsageError, USAGE_ERROR, write, type CommandIO, type ParsedFlags } from './args.js';

export const KEYS_HELP = `Usage: ipintel keys <command> [options]

Manages API keys. A key reads ipi_live_<32 characters>; it is printed once at
creation and stored only as a hash. Its id (the 10 characters after ipi_live_)
names it in list, revoke, rotate and in the server's logs.

Commands:
  create --plan PLAN [--name NAME]   create a key (plans: free, starter, pro, scale)
  list                               list keys: id, name, plan, state, usage this period
  revoke ID                          revoke a key now (it answers key_revoked)
  rotate ID [--grace D]              new key on the same plan and quota; the old one keeps
                                     working for the grace period (default 24h; 3600, 90s, 2h)

Options:
  --store SPEC               sqlite:PATH or redis://HOST:PORT[/DB] (default $IPINTEL_STORE,
                             else sqlite:$XDG_DATA_HOME/ipintel/store.sqlite, as serve)
  --activation-delay D       the servers' activation delay, for list's state (default 60s)
  --json                     machine-readable output
  -h, --help                 show this help

Example:
  ipintel keys create --plan free --name "my app"
  ipintel keys list
  ipintel keys rotate 4fJ2aB9xQz --grace 2h
`;

const FLAGS = {
  plan: { type: 'string' },
  name: { type: 'string' },
  grace: { type: 'string' },
  store: { type: 'string' },
  'activation-delay': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface KeysCommandOptions {
  /** Extra plans beyond the defaults. */
  readonly plans?: Readonly<Record<string, Plan>>;
  /** Clock (tests). */
  readonly now?: () => number;
}

const iso = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));

/** Runs `ipintel keys ...`; resolves with the exit code (0 ok, 1 failed, 2 usage error). */
export async function keysCommand(argv: string[], io: CommandIO, options: KeysCommandOptions = {}): Promise<number> {
  let parsed: ParsedFlags;
  let graceMs = DEFAULT_ROTATION_GRACE_MS;
  let delayMs = DEFAULT_ACTIVATION_DELAY_MS;
  const plans = resolvePlans(options.plans);
  try {
    parsed = parseFlags(argv, FLAGS, true);
    if (parsed.values['help'] === true || parsed.positionals.length === 0) {
      write(parsed.values['help'] === true ? io.stdout : io.stderr, KEYS_HELP);
      return parsed.values['help'] === true ? 0 : USAGE_ERROR;
    }
    const [cmd, ...rest] = parsed.positionals;
    const f = parsed;
    const want = (n: number): void => {
      if (rest.length !== n) throw new UsageError(n === 0 ? `keys ${cmd} takes no arguments` : `keys ${cmd} takes one key id`);
    };
    const only = (allowed: string[]): void => {
      const bad = ['plan', 'name', 'grace'].find((x) => f.values[x] !== undefined && !allowed.includes(x));
      if (bad !== undefined) throw new UsageError(`--${bad} does not apply to keys ${cmd}`);
    };
    if (cmd === 'create') {
      want(0);
      only(['plan', 'name']);
      const plan = str(f, 'plan');
      if (plan === undefined) throw new UsageError(`keys create needs --plan (${Object.keys(plans).join(', ')})`);
      if (!Object.hasOwn(plans, plan)) throw new UsageError(`unknown plan ${JSON.stringify(plan)}; plans: ${Object.keys(plans).join(', ')}`);
    } else if (cmd === 'list') {
      want(0);
      only([]);
    } else if (cmd === 'revoke' || cmd === 'rotate') {
      want(1);
      only(cmd === 'rotate' ? ['grace'] : []);
    } else {
      throw new UsageError(`unknown command ${JSON.stringify(cmd)}; commands: create, list, revoke, rotate`);
    }
    const grace = str(f, 'grace');
    const delay = str(f, 'activation-delay');
    if (grace !== undefined) graceMs = parseDuration(grace, '--grace');
    if (delay !== undefined) delayMs = parseDuration(delay, '--activation-delay');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    write(io.stderr, `ipintel keys: ${e.message}\n\nRun "ipintel keys --help" for usage.`);
    return USAGE_ERROR;
  }

  const [cmd, id] = parsed.positionals as [string, string | undefined];
  const f = parsed;
  const now = options.now ?? Date.now;
  let store: Store | undefined;
  try {
    store = await openStore(str(f, 'store') ?? defaultStoreSpec(), { waitMs: 3000 });
    if (cmd === 'create') {
      const { key, record } = await createKey(store, { plan: str(f, 'plan')!, name: str(f, 'name') ?? null, plans, now: now() });
      announce(io, f.values['json'] === true, key, record, 'Created');
    } else if (cmd === 'rotate') {
      const { created, old } = await rotateKey(store, id!, { graceMs, now: now(), plans });
      announce(io, f.values['json'] === true, created.key, created.record, `Rotated ${old.id} (it keeps working until ${iso(old.revokedAt)}); created`);
    } else if (cmd === 'revoke') {
      const k = await revokeKey(store, id!, now());
      if (f.values['json'] === true) write(io.stdout, JSON.stringify({ id: k.id, revoked_at: iso(k.revokedAt) }));
      else write(io.stdout, `Revoked key ${k.id} at ${iso(k.revokedAt)}.`);
    } else {
      await list(io, store, plans, now(), delayMs, f.values['json'] === true);
    }
    return 0;
  } catch (e) {
    write(io.stderr, `ipintel keys: ${(e as Error).message}`);
    return 1;
  } finally {
    await store?.close();
  }
}

function announce(io: CommandIO, asJson: boolean, key: string, r: KeyRecord, verb: string): void {
  if (asJson) {
    write(io.stdout, JSON.stringify({ id: r.id, key, plan: r.plan, name: r.name, created_at: iso(r.createdAt) }));
    return;
  }
  write(io.stdout, key);
  write(
    io.stderr,
    `${verb} key ${r.id} on plan ${r.plan}${r.name === null ? '' : ` (${r.name})`}. The key is printed above and is not stored: keep it now.\n` +
      `It works once the servers' activation delay (60 s by default) has passed since ${iso(r.createdAt)}. Send it as the x-api-key header.`,
  );
}

async function list(io: CommandIO, store: Store, plans: Readonly<Record<string, Plan>>, now: number, delayMs: number, asJson: boolean): Promise<void> {
  const keys = await store.listKeys();
  const rows = [];
  for (const k of keys) {
    const plan = Object.hasOwn(plans, k.plan) ? plans[k.plan] : undefined;
    const used = plan === undefined ? null : await store.usage(k.account, periodAt(plan.period, now).key);
    const state = keyState(k, now, delayMs);
    rows.push({
      id: k.id,
      name: k.name,
      plan: k.plan,
      state: state !== 'revoked' && k.revokedAt !== null ? 'rotating' : state,
      created_at: iso(k.createdAt),
      revoked_at: k.revokedAt === null ? null : iso(k.revokedAt),
      replaced_by: k.replacedBy,
      used,
      quota: plan?.quota ?? null,
      period: plan?.period ?? null,
    });
  }
  if (asJson) {
    write(io.stdout, JSON.stringify(rows, null, 2));
    return;
  }
  if (rows.length === 0) {
    write(io.stdout, 'No keys. Create one with: ipintel keys create --plan free');
    return;
  }
  const table = [['ID', 'NAME', 'PLAN', 'STATE', 'CREATED', 'ENDS', 'USED']].concat(
    rows.map((r) => [r.id, r.name ?? '-', r.plan, r.state, r.created_at, r.revoked_at ?? '-', r.used === null ? '-' : `${r.used}/${r.quota} per ${r.period}`]),
  );
  const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
  for (const row of table) write(io.stdout, row.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd());
}
