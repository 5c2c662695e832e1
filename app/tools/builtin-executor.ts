import type { ConversationScope } from '../../sql/chat-conversations.ts';
import type { AppDeps } from '../core/deps.ts';

/**
 * Whose call it is: the organization, the agent and the user of the turn. Executors scope every
 * read and write by it. `usageMetadata` goes on the usage rows of model calls the tool makes (an
 * evaluation's `{ evaluation: true }`).
 */
export type BuiltinScope = ConversationScope & { usageMetadata?: Readonly<Record<string, unknown>> };

/**
 * What an executor of a built-in tool gets: the input the model sent, already checked against the
 * tool's input schema (app/tools/tool-input.ts: an input it refuses never reaches the executor),
 * the turn's scope and abort signal.
 */
export type BuiltinCall = { deps: AppDeps; scope: BuiltinScope; input: Record<string, unknown>; signal: AbortSignal };
export type BuiltinExecutor = (call: BuiltinCall) => Promise<unknown>;
