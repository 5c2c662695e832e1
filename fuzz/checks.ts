import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonSchema, Operation } from './document.ts';
import type { FuzzRequest } from './request.ts';
import type { FuzzResponse } from './send.ts';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** Slower than this is a failure, in milliseconds. */
export const SLOW_MS = 5_000;

const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
addFormats(ajv);
ajv.addFormat('uuid-v7', /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i);

/** The three error envelopes of the interface (docs/interface.md §1), as JSON Schema. */
const ENVELOPES = {
  validation: ajv.compile({
    type: 'object',
    required: ['statusCode', 'message', 'errors'],
    additionalProperties: false,
    properties: {
      statusCode: { const: 400 },
      message: { type: 'string' },
      errors: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['path', 'message'],
          additionalProperties: false,
          properties: { path: { type: 'array', items: { type: 'string' } }, message: { type: 'string' } },
        },
      },
    },
  }),
  coded: ajv.compile({
    type: 'object',
    required: ['statusCode', 'errorCode', 'message'],
    additionalProperties: false,
    properties: {
      statusCode: { type: 'integer' },
      errorCode: { type: 'string', pattern: '^[A-Z0-9_]+\\.[A-Z0-9_.]+$' },
      message: {
        type: 'object',
        required: ['en', 'es'],
        additionalProperties: false,
        properties: { en: { type: 'string' }, es: { type: 'string' } },
      },
      metadata: { type: 'object' },
    },
  }),
  plain: ajv.compile({
    type: 'object',
    required: ['statusCode', 'message'],
    properties: { statusCode: { type: 'integer' }, message: { type: 'string' }, errors: false, errorCode: false },
  }),
};

const compiled = new Map<JsonSchema, ValidateFunction>();
const validatorOf = (schema: JsonSchema) => {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  return validate;
};

export type Finding = { rule: string; detail: string };

/** What is wrong with one answer, if anything (empty: nothing). */
export function findingsOf(
  request: FuzzRequest,
  response: FuzzResponse,
  operation: Operation | undefined,
  allow: Set<string> | undefined,
): Finding[] {
  const findings: Finding[] = [];
  if (response.error || response.status === 0)
    return [{ rule: 'no answer', detail: response.error ?? 'connection closed without an HTTP answer' }];
  if (response.durationMs > SLOW_MS) findings.push({ rule: 'slow', detail: `${Math.round(response.durationMs)} ms` });
  const documented = operation?.responses;
  // 501 is the answer to methods the server does not know (raw bytes) or serve at all (CONNECT).
  const unknownMethod = request.raw !== undefined || request.method === 'CONNECT';
  if (response.status >= 500 && !(response.status === 503 && documented?.has(503)) && !(unknownMethod && response.status === 501)) {
    findings.push({ rule: '5xx', detail: `${response.status} ${response.text.slice(0, 200)}` });
  }
  if (request.method === 'HEAD' || request.method === 'CONNECT' || response.status === 204 || (request.method === 'OPTIONS' && !operation))
    return findings;
  // Error answers are JSON envelopes; a success is JSON when its operation documents a JSON body
  // (the docs page, its assets and static files are not).
  const type = String(response.headers['content-type'] ?? '');
  const documentedJson = operation?.responses.get(response.status) !== undefined;
  if (!/^application\/json/.test(type)) {
    if (response.status >= 400 || documentedJson)
      findings.push({ rule: 'not JSON', detail: `${type || 'no content-type'}: ${response.text.slice(0, 120)}` });
    return findings;
  }
  let body: unknown;
  try {
    body = response.text ? JSON.parse(response.text) : undefined;
  } catch {
    findings.push({ rule: 'not JSON', detail: `unparseable: ${response.text.slice(0, 120)}` });
    return findings;
  }
  if (response.status >= 400) {
    const statusCode = (body as { statusCode?: unknown } | undefined)?.statusCode;
    const shape = ENVELOPES.validation(body) ? 'validation' : ENVELOPES.coded(body) ? 'coded' : ENVELOPES.plain(body) ? 'plain' : undefined;
    if (!shape) findings.push({ rule: 'envelope', detail: `no contract envelope: ${response.text.slice(0, 200)}` });
    else if (statusCode !== response.status)
      findings.push({ rule: 'envelope', detail: `statusCode ${String(statusCode)} in a ${response.status} answer` });
    if (response.status === 405) {
      const header = response.headers.allow;
      if (typeof header !== 'string' || !header) findings.push({ rule: '405 without Allow', detail: '' });
      else if (allow && [...allow].some((method) => !header.split(/,\s*/).includes(method)))
        findings.push({ rule: '405 Allow', detail: `Allow: ${header}; documented ${[...allow].join(', ')}` });
    }
  }
  if (operation && documented && !request.raw && request.method === operation.method) {
    if (!documented.has(response.status)) {
      findings.push({ rule: 'undocumented status', detail: `${response.status} ${response.text.slice(0, 160)}` });
    } else {
      const schema = documented.get(response.status);
      if (schema && body !== undefined && !validatorOf(schema)(body)) {
        findings.push({
          rule: 'body outside its documented schema',
          detail: `${response.status}: ${ajv.errorsText(validatorOf(schema).errors)}; ${response.text.slice(0, 160)}`,
        });
      }
    }
  }
  return findings;
}
