import type { ValidationIssue } from './errors.ts';

/**
 * The rules every decoded request value obeys, whatever route it is for (ADR 0060):
 * - no string (value or object key) holds U+0000: PostgreSQL text and jsonb cannot store it;
 * - lone UTF-16 surrogates are replaced by U+FFFD, as the UTF-8 decoder already does for
 *   invalid bytes in bodies, query strings and paths (replace, never refuse);
 * - every number is finite and every integer-valued number is a safe integer (2^53 - 1 at
 *   most in magnitude); `-0` becomes `0`.
 *
 * `value` is normalised in place (it is the freshly parsed request part, owned by the
 * request); the returned issues name each offending field, prefixed like the validator's.
 */
export function inspectInput(value: unknown, prefix: string[]): { value: unknown; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const normalised = visit(value, [...prefix], issues, 0);
  return { value: normalised, issues };
}

/** Deeper than any schema we accept; the body parser's JSON limit bounds the rest. */
const MAX_DEPTH = 64;

/**
 * `path` is one stack for the whole walk, copied only into an issue: a batch of 1000 events
 * would otherwise allocate a path array per value.
 */
function visit(value: unknown, path: string[], issues: ValidationIssue[], depth: number): unknown {
  if (typeof value === 'string') return checkString(value, path, issues);
  if (typeof value === 'number') return checkNumber(value, path, issues);
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) {
    issues.push({ path: [...path], message: `must not be nested more than ${MAX_DEPTH} levels deep` });
    return value;
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      path.push(String(index));
      value[index] = visit(value[index], path, issues, depth + 1);
      path.pop();
    }
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const cleanKey = wellFormed(key);
    path.push(cleanKey);
    checkNul(key, path, issues);
    const item = visit(record[key], path, issues, depth + 1);
    path.pop();
    if (cleanKey !== key) delete record[key];
    record[cleanKey] = item;
  }
  return value;
}

function checkNul(text: string, path: string[], issues: ValidationIssue[]): void {
  if (text.includes('\u0000')) issues.push({ path: [...path], message: 'must not contain the NUL character (U+0000)' });
}

function checkString(text: string, path: string[], issues: ValidationIssue[]): string {
  checkNul(text, path, issues);
  return wellFormed(text);
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Most text has no surrogate at all: one cheap test spares it the replace. */
const ANY_SURROGATE = /[\uD800-\uDFFF]/;

/** `String#toWellFormed` (ES2024), written out for the ES2023 library this project targets. */
const wellFormed = (text: string) => (ANY_SURROGATE.test(text) ? text.replace(LONE_SURROGATE, '\uFFFD') : text);

function checkNumber(number: number, path: string[], issues: ValidationIssue[]): number {
  if (!Number.isFinite(number)) {
    issues.push({ path: [...path], message: 'must be a finite number' });
  } else if (Number.isInteger(number) && !Number.isSafeInteger(number)) {
    issues.push({ path: [...path], message: 'must be at most 2^53 - 1 in magnitude' });
  }
  return Object.is(number, -0) ? 0 : number;
}
