import type { JSONSchema7 } from '@ai-sdk/provider';
import type { BuiltinExecutor, BuiltinExecutors } from './builtin-executor.ts';
import { fetchUrl } from './fetch-url.ts';

export type { BuiltinCall, BuiltinExecutor, BuiltinExecutors } from './builtin-executor.ts';

export const DEFAULT_BUILTIN_EXECUTORS: BuiltinExecutors = new Map<string, BuiltinExecutor>([['fetch_url', fetchUrl]]);

const text = (description: string, extra: Record<string, unknown> = {}) => ({ type: 'string' as const, description, ...extra });
const object = (properties: Record<string, JSONSchema7>, required: string[]): JSONSchema7 => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** The input schema the service declares for each built-in catalog tool. */
export const BUILTIN_SCHEMAS: Readonly<Record<string, JSONSchema7>> = {
  web_search: object({ query: text('What to search for', { maxLength: 500 }) }, ['query']),
  fetch_url: object({ url: text('The http(s) URL of the page', { maxLength: 2048 }) }, ['url']),
  search_knowledge_base: object({ query: text('What to look for', { maxLength: 500 }) }, ['query']),
  list_documents: object({}, []),
  send_email: object(
    {
      to: { type: 'array', items: text('An email address', { maxLength: 320 }), minItems: 1, maxItems: 50 },
      subject: text('Subject line', { maxLength: 500 }),
      body: text('Plain-text body', { maxLength: 20_000 }),
    },
    ['to', 'subject', 'body'],
  ),
  search_inbox: object({ query: text('What to look for', { maxLength: 500 }) }, ['query']),
  list_events: object({ from: text('Start, ISO 8601'), to: text('End, ISO 8601') }, ['from', 'to']),
  create_event: object(
    {
      title: text('Title', { maxLength: 500 }),
      start: text('Start, ISO 8601'),
      end: text('End, ISO 8601'),
      attendees: { type: 'array', items: text('An email address', { maxLength: 320 }), maxItems: 100 },
    },
    ['title', 'start', 'end'],
  ),
};

/** The message of a built-in tool call the deployment cannot run. */
export const noExecutorMessage = (toolName: string) => `This deployment has no executor for the built-in tool ${toolName}; it did not run.`;
