/**
 * `ipintel info`: what the loaded snapshot holds — build date, each source
 * with its date, entry count and licence, index sizes, and address counts
 * per signal. `--json` prints the same as one JSON object.
 *
 * @module
 */
import { statSync } from 'node:fs';
import { freshness } from '@ipintel/core';
import { qualityReport } from '@ipintel/core/internal';
import { HELP_FLAG, stringFlag, type ParsedArgs } from '../args.js';
import { EXIT_OK } from '../errors.js';
import { coverage } from '../info/coverage.js';
import { renderQuality } from '../info/quality.js';
import { renderInfo } from '../info/render.js';
import { writeOutput, type CliIo } from '../io.js';
import { openSnapshot, SNAPSHOT_FLAG, snapshotPath } from '../snapshot.js';
import type { Command } from './command.js';

async function run(args: ParsedArgs, io: CliIo): Promise<number> {
  const path = snapshotPath(stringFlag(args, 'snapshot'));
  const intel = openSnapshot(path);
  const bytes = statSync(path).size;
  const cov = args.flags['no-counts'] === undefined ? coverage(intel) : null;
  const quality = args.flags['quality'] === undefined ? null : qualityReport(intel);
  const note = 'not computed (--no-counts)';
  const fresh = freshness(intel.info, (io.now ?? Date.now)());
  if (args.flags['json'] !== undefined) {
    const body = {
      snapshot: { path, bytes },
      ...intel.info,
      freshness: fresh,
      address_counts: cov === null ? null : { ipv6_unit: '/64', signals: cov.signals },
      ...(cov === null ? { address_counts_note: note } : {}),
      ...(quality === null ? {} : { quality: { public_ipv4: quality.public_ipv4, mapped_ipv4: quality.mapped_ipv4, labels: quality.labels } }),
    };
    await writeOutput(io.stdout, `${JSON.stringify(body, null, 2)}\n`);
  } else {
    await writeOutput(io.stdout, renderInfo(path, bytes, intel.info, cov, note, fresh) + (quality === null ? '' : `\n${renderQuality(quality)}`));
  }
  return EXIT_OK;
}

export const infoCommand: Command = {
  summary: 'Show what the snapshot holds: build date, sources, sizes and address counts per signal.',
  usage: 'ipintel info [--snapshot PATH] [--json] [--no-counts] [--quality]',
  details: [
    'Prints the snapshot path and size, format version, build date, attribution URL, index',
    'sizes, every source (id, publisher, data date, refresh interval, entry count, licence), the',
    "snapshot's age and the sources older than their refresh interval (judged now), per signal how",
    'many IPv4 addresses and IPv6 /64 blocks carry it; the signals it has no source for.',
    '--quality adds the quality report: each connection type and signal as a share of public',
    'IPv4 (address-weighted), its top ASNs, and the limits a world-scale build must stay within.',
  ].join('\n'),
  examples: [
    'ipintel info                                   # the default snapshot',
    'ipintel info --snapshot ./world.ipintel --json | jq .sources',
  ],
  spec: {
    name: 'info',
    positionals: { min: 0, max: 0, name: '' },
    flags: {
      snapshot: SNAPSHOT_FLAG,
      json: { type: 'boolean', description: 'Print one JSON object instead of tables.' },
      'no-counts': { type: 'boolean', description: 'Skip the per-signal address counts.' },
      quality: { type: 'boolean', description: 'Add the quality report (shares of public IPv4 per label, top ASNs, limits).' },
      help: HELP_FLAG,
    },
  },
  run,
};
