// The string form of every `windowMs` option (which also takes a number of milliseconds).

/**
 * A duration written with its unit: whole `ms`, `s` or `m` (`'500ms'`, `'30s'`, `'15m'`).
 * The type rules out decimals and other units; {@link parseWindow} still rejects zero and signs at run time.
 */
export type Duration = `${bigint}ms` | `${bigint}s` | `${bigint}m`;
