import { APICallError } from '@ai-sdk/provider';
import { RetryError } from 'ai';
import { CodedError } from '../core/errors.ts';
import type { ProviderFailure } from '../net/guarded-fetch.ts';
import { toolFailureText } from './tool-map.ts';

/*
 * The words of a failed turn's `error` chunk, for every caller that runs a model call for a
 * conversation (the turn, its guardrail checks, an evaluation's case).
 */

/** Storing the turn failed after the stream had started (PostgreSQL lost mid-turn). */
export class TurnNotSaved extends Error {
  override name = 'TurnNotSaved';
}

/**
 * The text of the stream's `error` chunk: it names the cause in the service's own words. The
 * provider's text is never quoted (a provider may echo the request, key included).
 */
export function describeFailure(error: unknown, failures: readonly ProviderFailure[]): string {
  const tool = toolFailureText(error);
  if (tool !== undefined) return tool;
  // A refused budget reservation (app/metering/reservations.ts): the call was not made.
  if (error instanceof CodedError) return `${error.errorCode}: ${error.messages.en}`;
  if (error instanceof TurnNotSaved) return 'The conversation could not be saved; this answer was not kept. Try again.';
  if (failures.includes('timeout')) return 'The model provider did not answer in time.';
  if (failures.includes('too_large')) return 'The model provider sent more data than allowed.';
  if (failures.includes('unreachable')) return 'The model provider could not be reached.';
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode;
    if (status === 401 || status === 403) return `The model provider refused the API key (HTTP ${status}).`;
    if (status !== undefined) return `The model provider answered HTTP ${status}.`;
    return 'The model provider could not be reached.';
  }
  if (isNamed(cause, ['AI_JSONParseError', 'AI_TypeValidationError', 'AI_InvalidResponseDataError', 'AI_EmptyResponseBodyError']))
    return 'The model provider sent a malformed stream.';
  return 'The chat failed unexpectedly.';
}

const isNamed = (error: unknown, names: string[]) => error instanceof Error && names.includes(error.name);
