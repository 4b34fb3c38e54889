/**
 * The builder's errors. Each stage has one class (a feed file, getting its
 * bytes, the build, a feed declaration), and every error carries a stable
 * `code` from `BUILDER_ERROR_CODES` plus, where another error led to it,
 * that error as `cause`. Callers branch on `code`, never on the message.
 *
 * docs/feeds.md ("Error codes") holds the same table; a test checks that the
 * two agree.
 *
 * @module
 */

/** Every code, the class that carries it, and what it means. */
export const BUILDER_ERROR_CODES = {
  feed_empty: { class: 'FeedError', meaning: 'the file holds no data: zero bytes, no data line, or none of the kind it is read for (an RIR file with asn records only)' },
  feed_format: {
    class: 'FeedError',
    meaning: 'the file is not in the declared format: not JSON, the wrong shape, an HTML page, or no entry readable',
  },
  feed_compression: { class: 'FeedError', meaning: 'the gzip or bzip2 layer cannot be unpacked' },
  feed_truncated: { class: 'FeedError', meaning: 'the file holds fewer records than it says it does' },
  fetch_network: { class: 'AcquireError', meaning: 'the download failed before an answer (DNS, connection refused, reset)' },
  fetch_timeout: { class: 'AcquireError', meaning: 'the download took longer than the timeout' },
  fetch_http: { class: 'AcquireError', meaning: 'the server answered with a status other than 2xx' },
  fetch_truncated: { class: 'AcquireError', meaning: 'the body ended before its Content-Length' },
  fetch_empty: { class: 'AcquireError', meaning: 'the server answered with an empty body' },
  fetch_locate: { class: 'AcquireError', meaning: "the feed's locator found no file in the page its download URL serves" },
  read_failed: { class: 'AcquireError', meaning: 'a file in the feeds folder or an npm data package could not be read' },
  feeds_not_found: { class: 'BuildError', meaning: 'the feeds folder given to the build does not exist' },
  options_conflict: { class: 'BuildError', meaning: 'build options that do not go together were given (a feeds folder and fetch; saving feeds without fetch)' },
  build_date_invalid: {
    class: 'BuildError',
    meaning: 'the build date given (BuildOptions.buildDate) is no ISO UTC time as toISOString writes it, or SOURCE_DATE_EPOCH is no whole number of seconds up to the end of 9999',
  },
  source_shrunk: {
    class: 'BuildError',
    meaning: 'a source has fewer than the allowed share of its last build entries; the last good snapshot is kept',
  },
  quality_failed: {
    class: 'BuildError',
    meaning: 'the built snapshot puts more of public IPv4 under a label than its documented limit (docs/data.md); the last good snapshot is kept',
  },
  write_failed: {
    class: 'BuildError',
    meaning:
      'a file the build writes (the snapshot, its explain sidecar, a saved feed, the manifest) cannot be written: a missing folder, no permission, a full disk, a device, named pipe or socket at its path; the message names the path given, the file system\'s error is the cause',
  },
  manifest_unreadable: {
    class: 'BuildError',
    meaning:
      "the feeds folder's manifest (sources.json), a file it lists or the folder itself cannot be read: no permission, a folder where a file should be; the message names the path, the file system's error is the cause",
  },
  manifest_invalid: { class: 'BuildError', meaning: "the feeds folder's sources.json is not JSON, or not a manifest: files and excluded lists, each file with its path" },
  interrupted: {
    class: 'BuildError',
    meaning: "the caller's interrupts (ipintel build: SIGINT or SIGTERM) stopped a write before its rename: the temporary file is removed and the file it would have replaced is as it was",
  },
  declaration_invalid: { class: 'DeclarationError', meaning: 'a feed declaration or the registry breaks a rule (checked when the module loads)' },
} as const;

export type BuilderErrorCode = keyof typeof BUILDER_ERROR_CODES;
type CodesOf<C extends string> = { [K in BuilderErrorCode]: (typeof BUILDER_ERROR_CODES)[K]['class'] extends C ? K : never }[BuilderErrorCode];
export type FeedErrorCode = CodesOf<'FeedError'>;
export type AcquireErrorCode = CodesOf<'AcquireError'>;
export type BuildErrorCode = CodesOf<'BuildError'>;

/** An error about one feed: its declared id, a code of the subclass, the message prefixed with the id. */
abstract class FeedScopedError<C extends BuilderErrorCode> extends Error {
  constructor(
    /** The feed's declared id. */
    readonly feed: string,
    readonly code: C,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${feed}: ${message}`, options);
  }
}

/** A feed file as a whole is not what its declaration says (one bad line is a Diagnostic, never this). */
export class FeedError extends FeedScopedError<FeedErrorCode> {
  override readonly name = 'FeedError';
}

/** A feed's bytes could not be got (download or read). */
export class AcquireError extends FeedScopedError<AcquireErrorCode> {
  override readonly name = 'AcquireError';
}

/** The build as a whole refused to write a snapshot, or could not write a file. */
export class BuildError extends Error {
  override readonly name = 'BuildError';
  constructor(
    readonly code: BuildErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A feed declaration (or the registry) breaks a rule; thrown when the module that declares it loads. */
export class DeclarationError extends Error {
  override readonly name = 'DeclarationError';
  readonly code = 'declaration_invalid' as const;
  constructor(
    /** The declared id, or null for a registry-wide rule. */
    readonly feed: string | null,
    /** The declaration field at fault, or null. */
    readonly field: string | null,
    message: string,
  ) {
    super(`${feed === null ? 'feed registry' : `feed declaration "${feed}"`}: ${message}`);
  }
}
