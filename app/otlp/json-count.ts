import { TooManySpans } from './protobuf.ts';

/** An OTLP/JSON body with more JSON values than one request may carry (400). */
export class TooManyJsonValues extends Error {
  override name = 'TooManyJsonValues';
  readonly limit: number;
  constructor(limit: number) {
    super(`more than ${limit} JSON values (objects, arrays, strings, numbers) in one request`);
    this.limit = limit;
  }
}

// Where a container sits in an ExportTraceServiceRequest; OTHER for anything the count ignores.
const OTHER = 0;
const REQUEST = 1;
const RESOURCE_SPANS_LIST = 2;
const RESOURCE_SPANS = 3;
const SCOPE_SPANS_LIST = 4;
const SCOPE_SPANS = 5;
const SPANS_LIST = 6;

/** The list a key opens inside an object of role `role`, if it is one the count follows. */
function listRole(role: number, key: string): number {
  if (role === REQUEST && key === 'resourceSpans') return RESOURCE_SPANS_LIST;
  if (role === RESOURCE_SPANS && key === 'scopeSpans') return SCOPE_SPANS_LIST;
  if (role === SCOPE_SPANS && key === 'spans') return SPANS_LIST;
  return OTHER;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Counts an OTLP/JSON body before `JSON.parse` builds anything: one pass over the bytes that
 * follows only nesting, strings and the three keys leading to spans (`resourceSpans`,
 * `scopeSpans`, `spans`, also when written with escapes). Throws `TooManySpans` at the first
 * span over `maxSpans` and `TooManyJsonValues` at the first value over `maxValues` (what
 * `JSON.parse` spends its time on: an empty `{}` costs it about as much as a span). Bytes that are
 * not JSON are left for `JSON.parse` to refuse; for valid JSON the counts are exact, except that
 * a key repeated in one object counts its spans twice.
 */
export function countJsonTraceRequest(bytes: Uint8Array, limits: { maxSpans: number; maxValues: number }): void {
  // A role per open container; depth is bounded by the number of values, itself bounded.
  const roles = new Uint8Array(Math.min(bytes.length, limits.maxValues) + 1);
  const isObject = new Uint8Array(roles.length);
  let depth = 0;
  let expectingKey = false;
  let nextListRole = OTHER;
  let values = 0;
  let spans = 0;
  const valueStarts = () => {
    if (++values > limits.maxValues) throw new TooManyJsonValues(limits.maxValues);
    if (depth > 0 && roles[depth - 1] === SPANS_LIST && ++spans > limits.maxSpans) throw new TooManySpans(limits.maxSpans);
  };
  let i = 0;
  while (i < bytes.length) {
    const byte = bytes[i]!;
    if (byte === QUOTE) {
      const start = i + 1;
      const end = closingQuote(bytes, start);
      i = end + 1;
      if (expectingKey) {
        expectingKey = false;
        const role = depth > 0 ? roles[depth - 1]! : OTHER;
        if (role === REQUEST || role === RESOURCE_SPANS || role === SCOPE_SPANS) {
          nextListRole = listRole(role, keyText(bytes, start, end));
        }
      } else valueStarts();
    } else if (byte === 0x7b /* { */ || byte === 0x5b /* [ */) {
      valueStarts();
      const parent = depth > 0 ? roles[depth - 1]! : OTHER;
      let role = OTHER;
      if (byte === 0x7b) {
        if (depth === 0) role = REQUEST;
        else if (parent === RESOURCE_SPANS_LIST) role = RESOURCE_SPANS;
        else if (parent === SCOPE_SPANS_LIST) role = SCOPE_SPANS;
      } else if (depth > 0 && isObject[depth - 1]) role = nextListRole;
      if (depth >= roles.length) throw new TooManyJsonValues(limits.maxValues);
      roles[depth] = role;
      isObject[depth] = byte === 0x7b ? 1 : 0;
      depth++;
      nextListRole = OTHER;
      expectingKey = byte === 0x7b;
      i++;
    } else if (byte === 0x7d /* } */ || byte === 0x5d /* ] */) {
      if (depth > 0) depth--;
      expectingKey = false;
      i++;
    } else if (byte === 0x2c /* , */) {
      expectingKey = depth > 0 && isObject[depth - 1] === 1;
      nextListRole = OTHER;
      i++;
    } else if (byte === 0x3a /* : */ || byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) {
      i++;
    } else {
      // A number, true, false or null: one value up to the next delimiter.
      valueStarts();
      nextListRole = OTHER;
      while (i < bytes.length && !isDelimiter(bytes[i]!)) i++;
    }
  }
}

const isDelimiter = (byte: number) =>
  byte === 0x2c ||
  byte === 0x7d ||
  byte === 0x5d ||
  byte === 0x3a ||
  byte === 0x20 ||
  byte === 0x0a ||
  byte === 0x0d ||
  byte === 0x09 ||
  byte === QUOTE;

/**
 * The index of the quote that ends the string starting at `start` (the first not escaped by an
 * odd run of backslashes), or the end of the bytes. Found with the native `indexOf`: a 4 MiB
 * string costs a scan in C++, not a loop in JavaScript.
 */
function closingQuote(bytes: Uint8Array, start: number): number {
  let quote = bytes.indexOf(QUOTE, start);
  while (quote !== -1) {
    let backslashes = 0;
    while (quote - backslashes - 1 >= start && bytes[quote - backslashes - 1] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = bytes.indexOf(QUOTE, quote + 1);
  }
  return bytes.length;
}

/** A key's text as JSON.parse reads it, escapes included ('' when it is not valid JSON: JSON.parse refuses the body later). */
function keyText(bytes: Uint8Array, start: number, end: number): string {
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return '';
  }
}
