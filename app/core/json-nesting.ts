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
 * Follows the nesting of a JSON text fed in pieces (UTF-8 bytes as they arrive, or a string) and
 * throws a 400 (`ValidationError` at the root) at the first array or object opened deeper than
 * `maxDepth`, so a reader can stop there. One linear pass, constant memory: brackets inside
 * strings are skipped (escapes honoured; these delimiters are ASCII, which never occurs inside a
 * multi-byte UTF-8 sequence), everything else is left for `JSON.parse` to judge, so valid JSON
 * within the bound is never refused. Closing brackets never take the count below zero.
 */
export class JsonNesting {
  #depth = 0;
  #inString = false;
  #escaped = false;
  readonly #maxDepth: number;

  constructor(maxDepth = MAX_JSON_DEPTH) {
    this.#maxDepth = maxDepth;
  }

  feed(piece: Uint8Array | string): void {
    const text = typeof piece === 'string';
    for (let i = 0; i < piece.length; i++) {
      const code = text ? piece.charCodeAt(i) : piece[i]!;
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (code === BACKSLASH) this.#escaped = true;
        else if (code === QUOTE) this.#inString = false;
      } else if (code === QUOTE) this.#inString = true;
      else if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
        if (++this.#depth > this.#maxDepth) {
          throw new ValidationError([{ path: [], message: `JSON nested deeper than ${this.#maxDepth} levels` }]);
        }
      } else if ((code === 0x5d /* ] */ || code === 0x7d) /* } */ && this.#depth > 0) this.#depth--;
    }
  }
}

/** `JsonNesting` over a whole text. */
export function checkJsonNesting(text: string, maxDepth = MAX_JSON_DEPTH): void {
  new JsonNesting(maxDepth).feed(text);
}
