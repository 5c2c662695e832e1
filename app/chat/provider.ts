import { createHash } from 'node:crypto';
import type { LanguageModelV3, LanguageModelV3Middleware, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { wrapLanguageModel } from 'ai';
import { findProviderKey, type ProviderKeyRow } from '../../sql/provider-keys.ts';
import type { AppDeps } from '../core/deps.ts';
import { openJson } from '../crypto/credentials.ts';
import { guardedSession, providerFetch, type ProviderFailure } from '../net/guarded-fetch.ts';
import { urlPolicyFor } from '../net/url-policy.ts';
import { estimateTokens } from './context-window.ts';
import { DEMO_MODEL_ID, demoModel } from './demo-model.ts';
import { providerNotConfigured } from './errors.ts';
import type { UsageSource } from '../../sql/usage-window.ts';

/*
 * The model of a chat turn: its provider (the organization's key, the platform's gateway or the
 * demo model) over the bounded provider fetch, wrapped in two language-model middlewares, the
 * usage meter (`usageMeter`) outside the answer's byte cap (`answerCap`).
 */

/** Most bytes one provider response may stream (a hostile provider cannot stream forever). */
export const MAX_PROVIDER_RESPONSE_BYTES = 16 * 1024 * 1024;

/** The sealing context of an organization's provider key: a ciphertext copied to another organization does not open. */
export const providerKeyContext = (organizationId: string) => `organization:${organizationId}/provider-key`;

/** The model one chat turn talks to, with what it measured and why it failed. */
export type ChatModel = {
  model: LanguageModelV3;
  /** The model id as requested (usage events carry it). */
  modelId: string;
  source: UsageSource;
  calls: MeteredCall[];
  failures: ProviderFailure[];
  /** Ends the turn's outbound connections (BYOK). */
  close(): Promise<void>;
};

/**
 * Picks the provider of a turn: the organization's own key (BYOK, its `baseUrl` under the
 * outbound URL policy), else the platform's `AI_GATEWAY_*` (operator configuration, trusted),
 * else the demo model outside production; in production 503 `AI.PROVIDER_NOT_CONFIGURED`.
 * Throws before any stream starts.
 */
export async function chatModelFor(deps: AppDeps, organizationId: string, requestedModelId: string, turn: AbortSignal): Promise<ChatModel> {
  return chatModelWith(deps, organizationId, requestedModelId, turn, await findProviderKey(deps.db, organizationId));
}

/** `chatModelFor` given the organization's stored key (`findProviderKey`), read by the caller. */
export function chatModelWith(
  deps: AppDeps,
  organizationId: string,
  requestedModelId: string,
  turn: AbortSignal,
  stored: ProviderKeyRow | null,
): ChatModel {
  const meter = usageMeter(deps.clock);
  const limits = { idleTimeoutMs: deps.config.ai.providerTimeoutMs, maxResponseBytes: MAX_PROVIDER_RESPONSE_BYTES };
  // The meter outside the cap: a call the cap ends is still metered (with the cap's estimate).
  const metered = (model: LanguageModelV3) => wrapLanguageModel({ model, middleware: [meter.middleware, answerCap()] }) as LanguageModelV3;
  if (stored) {
    const apiKey = openJson<string>(
      deps.config.credentialsKeyring,
      { keyId: stored.keyId, ciphertext: stored.ciphertext },
      providerKeyContext(organizationId),
    );
    const session = stored.baseUrl
      ? guardedSession({
          policy: urlPolicyFor(deps.config),
          maxResponseBytes: MAX_PROVIDER_RESPONSE_BYTES,
          deadline: turn,
          onFailure: () => {},
        })
      : undefined;
    const endpoint = { name: 'byok', baseURL: stored.baseUrl ?? deps.config.ai.gatewayUrl, apiKey };
    const outbound = providerFetch(session ? session.fetch : fetch, limits);
    return { ...openAiCompatible(endpoint, outbound, 'byok'), close: async () => session?.close() };
  }
  const apiKey = deps.config.ai.gatewayApiKey;
  if (apiKey === undefined) {
    if (deps.config.nodeEnv === 'production') throw providerNotConfigured();
    return {
      model: metered(demoModel()),
      modelId: DEMO_MODEL_ID,
      source: 'system',
      calls: meter.calls,
      failures: [],
      close: async () => {},
    };
  }
  const endpoint = { name: 'gateway', baseURL: deps.config.ai.gatewayUrl, apiKey };
  return { ...openAiCompatible(endpoint, providerFetch(fetch, limits), 'system'), close: async () => {} };

  /** A Chat Completions model at `endpoint`, over the turn's bounded fetch, metered. */
  function openAiCompatible(
    endpoint: { name: string; baseURL: string; apiKey: string },
    outbound: ReturnType<typeof providerFetch>,
    source: ChatModel['source'],
  ): Omit<ChatModel, 'close'> {
    return {
      model: metered(chatModelOver(endpoint, requestedModelId, outbound.fetch)),
      modelId: requestedModelId,
      source,
      calls: meter.calls,
      failures: outbound.failures,
    };
  }
}

/** Most chat model instances kept for reuse (one per endpoint, key and model id). */
const MAX_CACHED_MODELS = 64;
const cachedModels = new Map<string, LanguageModelV3>();

/**
 * A Chat Completions model at `endpoint` whose requests go through `fetch` (the turn's bounded,
 * failure-recording fetch). Building the SDK's model compiles its zod chunk schema, and the first
 * parse with a new schema compiles it again: together most of the service's added time to the
 * first chunk. So one instance per endpoint, key (by hash) and model id is kept, and each turn
 * gets an object inheriting from it with its own `config` (the SDK reads `this.config.fetch` on
 * every call). The cache only saves work: the key is still looked up for every turn.
 */
function chatModelOver(endpoint: { name: string; baseURL: string; apiKey: string }, modelId: string, fetch: typeof globalThis.fetch) {
  const key = [endpoint.name, endpoint.baseURL, createHash('sha256').update(endpoint.apiKey).digest('base64'), modelId].join('\n');
  let shared = cachedModels.get(key);
  if (!shared) {
    if (cachedModels.size >= MAX_CACHED_MODELS) cachedModels.delete(cachedModels.keys().next().value!);
    shared = createOpenAICompatible({ ...endpoint, includeUsage: true }).chatModel(modelId);
    cachedModels.set(key, shared);
  }
  const config = (shared as unknown as { config: Record<string, unknown> }).config;
  return Object.assign(Object.create(shared) as LanguageModelV3, { config: { ...config, fetch } });
}

/** One model call as measured: tokens as the provider reported them and the time to its last chunk. */
export type MeteredCall = {
  inputTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
  latencyMs: number;
  finishedAt: Date;
};

/**
 * A language-model middleware that records every streamed call whose usage the provider
 * reported: its usage from the `finish` part and the milliseconds from sending the request to it
 * (the stream's last part).
 * Input tokens are counted without the cached ones (the usage event's convention).
 */
export function usageMeter(clock: () => Date): { middleware: LanguageModelV3Middleware; calls: MeteredCall[] } {
  const calls: MeteredCall[] = [];
  const middleware: LanguageModelV3Middleware = {
    specificationVersion: 'v3',
    wrapStream: async ({ doStream }) => {
      const started = performance.now();
      const result = await doStream();
      let usage: LanguageModelV3Usage | undefined;
      const stream = result.stream.pipeThrough(
        new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
          // Recorded when the provider reports the usage (its last part): a turn stopped after it
          // still records the call (the stop route saves "the usage already reported").
          transform(part, controller) {
            if (part.type === 'finish' && !usage) {
              usage = part.usage;
              calls.push({ ...tokensOf(usage), latencyMs: Math.round(performance.now() - started), finishedAt: clock() });
            }
            controller.enqueue(part);
          },
        }),
      );
      return { ...result, stream };
    },
  };
  return { middleware, calls };
}

function tokensOf(usage: LanguageModelV3Usage) {
  const cacheReadTokens = usage.inputTokens.cacheRead ?? 0;
  const total = usage.inputTokens.total ?? 0;
  return {
    inputTokens: usage.inputTokens.noCache ?? Math.max(0, total - cacheReadTokens),
    cacheReadTokens,
    outputTokens: usage.outputTokens.total ?? 0,
  };
}

/** Most bytes (UTF-8) of text, reasoning and tool input one assistant answer stores, over all its model calls. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** The longest start of `text` whose UTF-8 takes at most `bytes` (never half a character). */
function cutToBytes(text: string, bytes: number): string {
  let used = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (used + size > bytes) break;
    used += size;
    end += char.length;
  }
  return text.slice(0, end);
}

/**
 * A language-model middleware that ends a turn's answer at `maxBytes` (docs/chat.md, "Bounds"):
 * the deltas of all the turn's model calls are counted; the one that reaches the bound is cut,
 * open text and reasoning parts are closed, the call finishes with reason `length` (so the turn
 * stops and its UI stream's `finish` says `length`) and the provider's stream is cancelled. The
 * provider's own token counts never arrive for a cut call: its usage is the o200k estimate of
 * the prompt and of the text kept.
 */
export function answerCap(maxBytes = MAX_ANSWER_BYTES): LanguageModelV3Middleware {
  let used = 0;
  return {
    specificationVersion: 'v3',
    wrapStream: async ({ doStream, params }) => {
      const result = await doStream();
      const reader = result.stream.getReader();
      const open = new Map<string, 'text' | 'reasoning'>();
      let kept = '';
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          const next = await reader.read();
          if (next.done) return controller.close();
          const part = next.value;
          if (part.type === 'text-start' || part.type === 'reasoning-start')
            open.set(part.id, part.type === 'text-start' ? 'text' : 'reasoning');
          if (part.type === 'text-end' || part.type === 'reasoning-end') open.delete(part.id);
          if (part.type !== 'text-delta' && part.type !== 'reasoning-delta' && part.type !== 'tool-input-delta')
            return controller.enqueue(part);
          const size = Buffer.byteLength(part.delta);
          if (used + size <= maxBytes) {
            used += size;
            if (part.type === 'text-delta') kept += part.delta;
            return controller.enqueue(part);
          }
          const rest = cutToBytes(part.delta, maxBytes - used);
          used = maxBytes;
          if (rest !== '') controller.enqueue({ ...part, delta: rest });
          if (part.type === 'text-delta') kept += rest;
          for (const [id, kind] of open) controller.enqueue({ type: kind === 'text' ? 'text-end' : 'reasoning-end', id });
          const input = estimateTokens(JSON.stringify(params.prompt));
          const output = estimateTokens(kept);
          controller.enqueue({
            type: 'finish',
            finishReason: { unified: 'length', raw: undefined },
            usage: {
              inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: undefined },
              outputTokens: { total: output, text: output, reasoning: undefined },
            },
          });
          controller.close();
          await reader.cancel();
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return { ...result, stream };
    },
  };
}
