/**
 * `ipintel keys create|list|revoke|rotate`: API keys of the HTTP API, in the
 * same default store as `ipintel serve`. `create` and `rotate` print the new
 * key alone on stdout (so `KEY=$(ipintel keys create --plan free)` works) and
 * the explanation on stderr; the key is never shown again. @ipintel/server
 * (key functions, plans, stores) is loaded only when the command runs.
 *
 * @module
 */
import type { KeyRecord, Plan, Store } from '@ipintel/server';
import { HELP_FLAG, stringFlag, type ParsedArgs } from '../args.js';
import { CliError, EXIT_OK, UsageError } from '../errors.js';
import { writeAsync, type CliIo } from '../io.js';
import { shownText } from '../shown-text.js';
import { parseDuration } from '../values.js';
import type { Command } from './command.js';
import { loadServer } from './load.js';

type Server = typeof import('@ipintel/server');
type Action = 'create' | 'list' | 'revoke' | 'rotate';

/** Per action: how many key ids it takes, and which action-specific flags apply. */
const ACTIONS: Readonly<Record<Action, { readonly ids: number; readonly flags: readonly string[] }>> = {
  create: { ids: 0, flags: ['plan', 'name'] },
  list: { ids: 0, flags: ['activation-delay'] },
  revoke: { ids: 1, flags: [] },
  rotate: { ids: 1, flags: ['grace', 'activation-delay'] },
};
const ACTION_FLAGS = ['plan', 'name', 'grace', 'activation-delay'];

const iso = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));

/** Validates the action, its key id and the flags that apply to it (usage errors, before anything loads). */
function actionOf(args: ParsedArgs): { action: Action; id: string | undefined } {
  const [name, ...rest] = args.positionals;
  if (!Object.hasOwn(ACTIONS, name!)) throw new UsageError(`unknown action ${JSON.stringify(name)}; actions: ${Object.keys(ACTIONS).join(', ')}`, 'keys');
  const action = name as Action;
  const spec = ACTIONS[action];
  if (rest.length !== spec.ids) throw new UsageError(spec.ids === 0 ? `keys ${action} takes no arguments` : `keys ${action} takes one key id`, 'keys');
  const stray = ACTION_FLAGS.find((f) => args.flags[f] !== undefined && !spec.flags.includes(f));
  if (stray !== undefined) throw new UsageError(`--${stray} does not apply to keys ${action}`, 'keys');
  if (action === 'create' && args.flags['plan'] === undefined) throw new UsageError('keys create needs --plan (free, starter, pro, scale)', 'keys');
  return { action, id: rest[0] };
}

async function announce(io: CliIo, asJson: boolean, key: string, r: KeyRecord, verb: string): Promise<void> {
  if (asJson) {
    await writeAsync(io.stdout, `${JSON.stringify({ id: r.id, key, plan: r.plan, name: r.name, created_at: iso(r.createdAt) })}\n`);
    return;
  }
  await writeAsync(io.stdout, `${key}\n`);
  io.stderr.write(
    `${verb} key ${r.id} on plan ${r.plan}${r.name === null ? '' : ` (${shownText(r.name)})`}. The key is printed above and is not stored: keep it now.\n` +
      `It works once the servers' activation delay (60 s by default) has passed since ${iso(r.createdAt)}. Send it as the x-api-key header.\n`,
  );
}

/**
 * A rotation whose old key stops before the new one activates leaves the
 * customer with no working key in between (the new key is pending, the old
 * revoked): said on stderr, with the way out. Not refused: cutting a leaked
 * key at once (--grace 0) is a real choice.
 */
function gapWarning(io: CliIo, old: KeyRecord, created: KeyRecord, delayMs: number): void {
  const activeAt = created.createdAt + delayMs;
  if (old.revokedAt === null || old.revokedAt >= activeAt) return;
  const gap = Math.ceil((activeAt - old.revokedAt) / 1000);
  io.stderr.write(
    `warning: ${old.id} stops at ${iso(old.revokedAt)}, before ${created.id} becomes active at ${iso(activeAt)}: for ${gap} s neither key works. ` +
      `For a seamless switch rotate with --grace ${Math.ceil(delayMs / 1000)}s or more (the servers' activation delay; --activation-delay if yours differs from 60 s).\n`,
  );
}

async function list(io: CliIo, server: Server, store: Store, plans: Readonly<Record<string, Plan>>, delayMs: number, asJson: boolean): Promise<void> {
  const now = Date.now();
  const rows = [];
  for (const k of await store.listKeys()) {
    const plan = Object.hasOwn(plans, k.plan) ? plans[k.plan] : undefined;
    const used = plan === undefined ? null : await store.usage(k.account, server.periodAt(plan.period, now).key);
    const state = server.keyState(k, now, delayMs);
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
  if (asJson) return writeAsync(io.stdout, `${JSON.stringify(rows, null, 2)}\n`);
  if (rows.length === 0) return writeAsync(io.stdout, 'No keys. Create one with: ipintel keys create --plan free\n');
  const table = [['ID', 'NAME', 'PLAN', 'STATE', 'CREATED', 'ENDS', 'USED']].concat(
    rows.map((r) => [r.id, r.name === null ? '-' : shownText(r.name), r.plan, r.state, r.created_at, r.revoked_at ?? '-', r.used === null ? '-' : `${r.used}/${r.quota} per ${r.period}`]),
  );
  const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
  return writeAsync(io.stdout, table.map((row) => `${row.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd()}\n`).join(''));
}

async function run(args: ParsedArgs, io: CliIo): Promise<number> {
  const { action, id } = actionOf(args);
  const graceText = stringFlag(args, 'grace');
  const delayText = stringFlag(args, 'activation-delay');
  const graceMs = graceText === undefined ? undefined : parseDuration(graceText, '--grace', 'keys');
  const delayMs = delayText === undefined ? undefined : parseDuration(delayText, '--activation-delay', 'keys');
  const server = await loadServer('keys');
  const plans = server.resolvePlans();
  const plan = stringFlag(args, 'plan');
  if (plan !== undefined && !Object.hasOwn(plans, plan)) throw new UsageError(`unknown plan ${JSON.stringify(plan)}; plans: ${Object.keys(plans).join(', ')}`, 'keys');
  const asJson = args.flags['json'] !== undefined;
  let store: Store | undefined;
  try {
    store = await server.openStore(stringFlag(args, 'store') ?? server.defaultStoreSpec(), { waitMs: 3000 });
    if (action === 'create') {
      const { key, record } = await server.createKey(store, { plan: plan!, name: stringFlag(args, 'name') ?? null, plans, now: Date.now() });
      await announce(io, asJson, key, record, 'Created');
    } else if (action === 'rotate') {
      const { created, old } = await server.rotateKey(store, id!, { graceMs: graceMs ?? server.DEFAULT_ROTATION_GRACE_MS, now: Date.now(), plans });
      await announce(io, asJson, created.key, created.record, `Rotated ${old.id} (it keeps working until ${iso(old.revokedAt)}); created`);
      gapWarning(io, old, created.record, delayMs ?? server.DEFAULT_ACTIVATION_DELAY_MS);
    } else if (action === 'revoke') {
      const k = await server.revokeKey(store, id!, Date.now());
      await writeAsync(io.stdout, asJson ? `${JSON.stringify({ id: k.id, revoked_at: iso(k.revokedAt) })}\n` : `Revoked key ${k.id} at ${iso(k.revokedAt)}.\n`);
    } else {
      await list(io, server, store, plans, delayMs ?? server.DEFAULT_ACTIVATION_DELAY_MS, asJson);
    }
    return EXIT_OK;
  } catch (e) {
    // Unknown id, revoked key, store unreachable: the operator's message, exit 1.
    throw new CliError((e as Error).message, 1);
  } finally {
    await store?.close();
  }
}

export const keysCommand: Command = {
  summary: 'Create, list, rotate and revoke API keys of the HTTP API.',
  usage: 'ipintel keys <create|list|revoke|rotate> [ID] [flags]',
  details: [
    'Manages API keys. A key reads ipi_live_<32 characters>; it is printed once at creation and',
    'stored only as a hash. Its id (the 10 characters after ipi_live_) names it in list, revoke,',
    "rotate and in the server's logs.",
    '',
    'Actions:',
    '  create --plan PLAN [--name NAME]   create a key (plans: free, starter, pro, scale)',
    '  list [--activation-delay D]        list keys: id, name, plan, state, usage this period',
    '  revoke ID                          revoke a key now (it answers key_revoked)',
    '  rotate ID [--grace D]              new key on the same plan and quota; the old one keeps',
    '                                     working for the grace period (default 24h; 3600, 90s, 2h);',
    "                                     warns when it ends before the new key activates",
    '                                     (--activation-delay D: the servers\' delay, default 60s)',
    '',
    'Exit code 0 when done, 1 when it failed (unknown id, store unreachable), 2 for a usage error.',
  ].join('\n'),
  examples: ['ipintel keys create --plan free --name "my app"', 'ipintel keys list', 'ipintel keys rotate 4fJ2aB9xQz --grace 2h'],
  spec: {
    name: 'keys',
    positionals: { min: 1, max: 2, name: 'action (create, list, revoke or rotate)' },
    flags: {
      plan: { type: 'string', value: 'PLAN', description: 'create: the plan (free, starter, pro, scale).' },
      name: { type: 'string', value: 'NAME', description: 'create: a name to recognise the key by.' },
      grace: { type: 'string', value: 'D', description: 'rotate: how long the old key keeps working (default 24h).' },
      store: {
        type: 'string',
        value: 'SPEC',
        description: 'sqlite:PATH or redis://HOST:PORT[/DB] (default $IPINTEL_STORE, else sqlite:$XDG_DATA_HOME/ipintel/store.sqlite, as serve).',
      },
      'activation-delay': { type: 'string', value: 'D', description: "list, rotate: the servers' activation delay, for the state and the rotation's gap warning (default 60s)." },
      json: { type: 'boolean', description: 'Machine-readable output.' },
      help: HELP_FLAG,
    },
  },
  run,
};
