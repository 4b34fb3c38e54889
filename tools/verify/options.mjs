// verify-build's command line: the flags, their defaults, and the usage text.

export const USAGE =
  'usage: node tools/verify-build.mjs [--snapshot PATH] [--feeds DIR] [--v4 N] [--v6 N] [--seed S] [--json]\n' +
  '                                   [--geo-csv DIR] [--asn-csv DIR] [--per-feed N] [--list N] [--ip ADDR ...]\n';

/** A command line the tool cannot run (exit 2); `message` is null for --help. */
export class UsageError extends Error {
  constructor(message) {
    super(message ?? 'help');
    this.name = 'UsageError';
    this.help = message === null;
  }
}

export const DEFAULTS = Object.freeze({
  snapshot: null,
  feeds: null,
  v4: 100_000,
  v6: 20_000,
  seed: 42,
  json: false,
  geoCsv: null,
  asnCsv: null,
  perFeed: 300,
  ips: [],
  list: 10,
});

/** Parses the arguments (without `node` and the script); throws UsageError. */
export function parseArgs(argv) {
  const o = { ...DEFAULTS, ips: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      return v;
    };
    const int = () => {
      const v = val();
      if (!/^\d+$/.test(v)) throw new UsageError(`${a} needs a whole number, got ${JSON.stringify(v)}`);
      return Number(v);
    };
    if (a === '--snapshot') o.snapshot = val();
    else if (a === '--feeds') o.feeds = val();
    else if (a === '--v4') o.v4 = int();
    else if (a === '--v6') o.v6 = int();
    else if (a === '--seed') o.seed = int();
    else if (a === '--per-feed') o.perFeed = int();
    else if (a === '--list') o.list = int();
    else if (a === '--json') o.json = true;
    else if (a === '--geo-csv') o.geoCsv = val();
    else if (a === '--asn-csv') o.asnCsv = val();
    else if (a === '--ip') o.ips.push(val());
    else if (a === '--help' || a === '-h') throw new UsageError(null);
    else throw new UsageError(`unknown argument ${JSON.stringify(a)}`);
  }
  return o;
}
