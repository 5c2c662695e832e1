import { ValidationError } from './errors.ts';

/**
 * Deepest nesting of arrays and objects a JSON request body may have. Every documented body is
 * at most a handful of levels deep (a usage event's `metadata` included); 64 leaves room for
 * any client's own structures while `JSON.parse` of a deeper body (a 1 MiB run of `[` takes
 * ~130 ms) is never reached.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Throws a 400 (`ValidationError` at the root) when `text` nests arrays or objects deeper than
 * `maxDepth`. One pass, stopping at the first level too deep: brackets inside strings are
 * skipped (escapes honoured), everything else is left for `JSON.parse` to judge, so this never
 * refuses valid JSON within the bound. Closing brackets only lower the count, never below zero.
 */
export function checkJsonNesting(text: string, maxDepth = MAX_JSON_DEPTH): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      // To the closing quote; an unterminated string ends the scan (JSON.parse refuses it).
      for (i++; i < text.length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === BACKSLASH) i++;
        else if (inner === QUOTE) break;
      }
    } else if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
      if (++depth > maxDepth) {
        throw new ValidationError([{ path: [], message: `JSON nested deeper than ${maxDepth} levels` }]);
      }
    } else if ((code === 0x5d /* ] */ || code === 0x7d) /* } */ && depth > 0) depth--;
  }
}
