import type { AppDeps } from '../core/deps.ts';

/** What an executor of a built-in tool gets: the input the model sent (checked against the schema) and the turn's abort signal. */
export type BuiltinCall = { deps: AppDeps; input: Record<string, unknown>; signal: AbortSignal };
export type BuiltinExecutor = (call: BuiltinCall) => Promise<unknown>;

/** Executors by tool name. A deployment adds one to make a catalog tool run; the others end `output-error`. */
export type BuiltinExecutors = ReadonlyMap<string, BuiltinExecutor>;
