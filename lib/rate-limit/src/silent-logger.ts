import type { Logger } from './types.ts';

/** The default logger: drops everything. */
export const silentLogger: Logger = {
  warn: () => {},
  info: () => {},
};
