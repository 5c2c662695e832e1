import { uuidv7 } from 'uuidv7';
import type { UsageEventInput } from '../../../sql/usage-events.ts';
import { ACTION_TYPES, USAGE_SOURCES } from '../../../sql/usage-window.ts';
import { isUuid } from '../../core/schemas.ts';

/** A line of an import file that is not a valid usage event; names the line and the field. */
export class UsageLineError extends Error {
  readonly line: number;
  readonly field: string | undefined;
  constructor(line: number, field: string | undefined, reason: string) {
    super(`line ${line}${field ? `, field ${field}` : ''}: ${reason}`);
    this.line = line;
    this.field = field;
    this.name = 'UsageLineError';
  }
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const DECIMAL = /^\d{1,10}(\.\d{1,10})?$/;
const KNOWN = new Set([
  'organizationId',
  'agentId',
  'userId',
  'modelId',
  'actionType',
  'source',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'costUsd',
  'latencyMs',
  'createdAt',
]);
const MAX_TOKENS = 2 ** 53 - 1;

/** Parses one NDJSON line into a row ready for insert (docs/interface.md §4 usage event). */
export function parseUsageLine(text: string, line: number): UsageEventInput {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageLineError(line, undefined, 'not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageLineError(line, undefined, 'not a JSON object');
  const event = value as Record<string, unknown>;
  for (const key of Object.keys(event)) if (!KNOWN.has(key)) throw new UsageLineError(line, key, 'unknown field');
  const fail = (field: string, reason: string): never => {
    throw new UsageLineError(line, field, reason);
  };
  const uuid = (field: string, optional: boolean): string | null => {
    const v = event[field];
    if (v === undefined || v === null) return optional ? null : fail(field, 'Required');
    return isUuid(v) ? v.toLowerCase() : fail(field, 'must be a UUID');
  };
  const tokens = (field: string): number => {
    const v = event[field];
    if (v === undefined) return fail(field, 'Required');
    return Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_TOKENS
      ? (v as number)
      : fail(field, 'must be a non-negative integer');
  };
  const oneOf = <T extends string>(field: string, values: readonly T[]): T => {
    const v = event[field];
    if (v === undefined) return fail(field, 'Required');
    return values.includes(v as T) ? (v as T) : fail(field, `must be one of: ${values.join(', ')}`);
  };
  const modelId = event.modelId;
  if (modelId === undefined) fail('modelId', 'Required');
  if (typeof modelId !== 'string' || modelId.length < 1 || modelId.length > 200) fail('modelId', 'must be a string of 1 to 200 characters');
  const cost = event.costUsd;
  if (cost === undefined) fail('costUsd', 'Required');
  const costText = typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost.toFixed(10) : typeof cost === 'string' ? cost : '';
  if (!DECIMAL.test(costText)) fail('costUsd', 'must be a non-negative amount in USD (at most 10 decimals)');
  const latency = event.latencyMs;
  if (
    latency !== undefined &&
    latency !== null &&
    !(Number.isInteger(latency) && (latency as number) >= 0 && (latency as number) <= 2_147_483_647)
  ) {
    fail('latencyMs', 'must be null or a non-negative integer');
  }
  const createdAt = event.createdAt;
  if (createdAt === undefined) fail('createdAt', 'Required');
  if (typeof createdAt !== 'string' || !ISO_DATE_TIME.test(createdAt) || Number.isNaN(Date.parse(createdAt))) {
    fail('createdAt', 'must be an ISO-8601 date-time with an offset');
  }
  return {
    id: uuidv7(),
    organizationId: uuid('organizationId', false)!,
    agentId: uuid('agentId', true),
    userId: uuid('userId', true),
    modelId: modelId as string,
    actionType: oneOf('actionType', ACTION_TYPES),
    source: oneOf('source', USAGE_SOURCES),
    inputTokens: tokens('inputTokens'),
    outputTokens: tokens('outputTokens'),
    cacheReadTokens: tokens('cacheReadTokens'),
    costUsd: costText,
    latencyMs: (latency as number | null | undefined) ?? null,
    createdAt: new Date(createdAt as string).toISOString(),
  };
}
