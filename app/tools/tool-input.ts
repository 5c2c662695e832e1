import { jsonSchema, TypeValidationError, type Schema } from 'ai';
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { ValidationIssue } from '../core/errors.ts';
import { inspectInput } from '../core/input-hygiene.ts';
import { EMAIL_PATTERN } from '../core/schemas.ts';
import { issuesOf, makeAjv } from '../core/validation.ts';
import type { BuiltinTool } from './builtins.ts';

/*
 * The input a model sends a built-in tool, checked against the tool's declared schema before its
 * executor runs. The check is the `validate` of the schema the AI SDK is given: the SDK then turns
 * an input that fails it into an invalid tool call (a `tool-input-error` and a `tool-output-error`
 * part the model reads), asks no approval for it and never calls the executor.
 */

const ajv = makeAjv(false, false);
// `format: email` in a tool's schema is the API's address rule (app/core/schemas.ts): an ASCII
// dot-atom local part and a dotted domain, so no control character, space, quote or bracket.
ajv.addFormat('email', new RegExp(EMAIL_PATTERN));

/** Most problems named in one refusal; the model corrects them one call at a time anyway. */
const MAX_ISSUES = 5;

export type ToolInput = Record<string, unknown>;
type Checked = { success: true; value: ToolInput } | { success: false; error: Error };

/**
 * The SDK's validation error for `value`, in the service's words. Its own message would quote
 * the whole input (up to the 1 MiB an answer may hold) before the reason; `TypeValidationError.wrap`
 * passes an error about the same value on unchanged, so the refusal reads
 * "Invalid input for tool send_email: to.0: must be an email address".
 */
function refusal(value: unknown, issues: ValidationIssue[]): TypeValidationError {
  const named = issues.slice(0, MAX_ISSUES).map(({ path, message }) => `${path.length === 0 ? 'input' : path.join('.')}: ${message}`);
  if (issues.length > MAX_ISSUES) named.push(`and ${issues.length - MAX_ISSUES} more`);
  return Object.assign(new TypeValidationError({ value, cause: named.join('; ') }), { message: named.join('; ') });
}

/**
 * A check of `schema`, compiled once: AJV as for request bodies (no coercion, every problem), then
 * the rules every request value obeys (`inspectInput`: no NUL, finite numbers, well-formed text),
 * one issue a path.
 */
function checkerOf(schema: JSONSchema7): (value: unknown) => Checked {
  const validate = ajv.compile(schema);
  return (value) => {
    const valid = validate(value);
    const inspected = inspectInput(value, []);
    const issues: ValidationIssue[] = [];
    for (const issue of [...(valid ? [] : issuesOf(validate.errors ?? [], [])), ...inspected.issues])
      if (!issues.some((known) => known.path.join('\u0000') === issue.path.join('\u0000'))) issues.push(issue);
    if (issues.length > 0) return { success: false, error: refusal(value, issues) };
    return { success: true, value: inspected.value as ToolInput };
  };
}

const schemas = new WeakMap<BuiltinTool, Schema<ToolInput>>();

/** The schema a built-in tool is offered with: its declared input schema, checked by `validate` (compiled on first use, once). */
export function builtinInputSchema(tool: BuiltinTool): Schema<ToolInput> {
  let schema = schemas.get(tool);
  if (!schema) {
    schema = jsonSchema<ToolInput>(tool.inputSchema, { validate: checkerOf(tool.inputSchema) });
    schemas.set(tool, schema);
  }
  return schema;
}
