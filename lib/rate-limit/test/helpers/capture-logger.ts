import type { Logger } from '../../src/types.ts';

/** A logger that remembers what it was told. */
export function captureLogger(): Logger & { lines: Array<{ level: 'warn' | 'info'; message: string }> } {
  const lines: Array<{ level: 'warn' | 'info'; message: string }> = [];
  return {
    lines,
    warn: (_context, message) => lines.push({ level: 'warn', message }),
    info: (_context, message) => lines.push({ level: 'info', message }),
  };
}
