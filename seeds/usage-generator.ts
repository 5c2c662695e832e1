import { uuidv7 } from 'uuidv7';
import type { UsageEventInput } from '../sql/usage-events.ts';
import type { ActionType, UsageSource } from '../sql/usage-window.ts';

/**
 * Synthetic but realistic token usage, for the demo seed, `generate-usage` and the benchmark.
 * Deterministic for a given seed (mulberry32), so a seed run produces the same rows.
 */

/** mulberry32: a small, fast 32-bit PRNG (Tommy Ettinger, public domain). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export type GeneratedModel = {
  modelId: string;
  weight: number;
  /** USD per million tokens. */
  price: { input: number; output: number; cacheRead: number };
  /** Seconds per 1000 output tokens, and a fixed overhead in ms. */
  latency: { perKiloOutputMs: number; baseMs: number };
  embedding?: boolean;
};

/** The models of the generated mix; the last chat model is the one the demo leaves unpriced. */
export const GENERATED_MODELS: GeneratedModel[] = [
  {
    modelId: 'openai/gpt-4o-mini',
    weight: 34,
    price: { input: 0.15, output: 0.6, cacheRead: 0.075 },
    latency: { perKiloOutputMs: 9_000, baseMs: 350 },
  },
  {
    modelId: 'anthropic/claude-sonnet-4',
    weight: 22,
    price: { input: 3, output: 15, cacheRead: 0.3 },
    latency: { perKiloOutputMs: 16_000, baseMs: 700 },
  },
  {
    modelId: 'openai/gpt-4o',
    weight: 14,
    price: { input: 2.5, output: 10, cacheRead: 1.25 },
    latency: { perKiloOutputMs: 12_000, baseMs: 500 },
  },
  {
    modelId: 'anthropic/claude-3-5-haiku',
    weight: 14,
    price: { input: 0.8, output: 4, cacheRead: 0.08 },
    latency: { perKiloOutputMs: 7_000, baseMs: 300 },
  },
  {
    modelId: 'google/gemini-2.0-flash',
    weight: 10,
    price: { input: 0.1, output: 0.4, cacheRead: 0.025 },
    latency: { perKiloOutputMs: 5_000, baseMs: 250 },
  },
  {
    modelId: 'mistral/mistral-large-2411',
    weight: 6,
    price: { input: 2, output: 6, cacheRead: 2 },
    latency: { perKiloOutputMs: 14_000, baseMs: 600 },
  },
  {
    modelId: 'openai/text-embedding-3-small',
    weight: 0,
    price: { input: 0.02, output: 0, cacheRead: 0.02 },
    latency: { perKiloOutputMs: 0, baseMs: 60 },
    embedding: true,
  },
];

/** Share of each action among generated rows. */
const ACTION_MIX: [ActionType, number][] = [
  ['user_interaction', 0.6],
  ['guardrail_check', 0.15],
  ['rag_query_embedding', 0.12],
  ['title_generation', 0.08],
  ['document_indexing', 0.05],
];

export type GenerateOptions = {
  organizationId: string;
  rows: number;
  /** The window is `[end - days, end)`. */
  days: number;
  end: Date;
  seed: number;
  agentIds?: readonly string[];
  userIds?: readonly string[];
  /**
   * End users of the agents' web channels: each row of an action an end user's turn makes (every
   * action but `document_indexing`) carries one of them with probability `endUserShare`, drawn so that
   * a few end users make most of the calls (the first of the list the most). Without
   * them no random number is drawn for it, so the rows of a seed stay as they were.
   */
  endUserIds?: readonly string[];
  endUserShare?: number;
  batchSize?: number;
};

const DAY_MS = 86_400_000;

/** Relative activity at an instant: weekdays busier than weekends, a working-hours peak, slow growth. */
function activity(ms: number, startMs: number, spanMs: number): number {
  const date = new Date(ms);
  const weekday = date.getUTCDay();
  const hour = date.getUTCHours() + date.getUTCMinutes() / 60;
  const weekly = weekday === 0 || weekday === 6 ? 0.35 : 1;
  const daily = 0.15 + Math.exp(-((hour - 14.5) ** 2) / (2 * 3.5 ** 2));
  const growth = 0.7 + 0.6 * ((ms - startMs) / spanMs);
  return weekly * daily * growth;
}

const pick = <T>(random: () => number, items: readonly T[], weightOf: (item: T) => number): T => {
  const total = items.reduce((sum, item) => sum + weightOf(item), 0);
  let r = random() * total;
  for (const item of items) {
    r -= weightOf(item);
    if (r < 0) return item;
  }
  return items[items.length - 1]!;
};

/** Roughly log-normal positive integers around `median`. */
const around = (random: () => number, median: number, spread = 0.8) => {
  const gaussian = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Math.max(1, Math.round(median * Math.exp(spread * gaussian)));
};

const HOUR_MS = 3_600_000;

/**
 * Row timestamps in ascending order: each hour of the window gets its share of `rows` in
 * proportion to its activity (cumulative rounding, so the total is exact), spread over the hour.
 * Ascending time keeps inserts at the right edge of the time indexes, as live traffic does.
 */
function* timestamps(random: () => number, rows: number, startMs: number, endMs: number): Generator<number> {
  const spanMs = endMs - startMs;
  const hours = Math.ceil(spanMs / HOUR_MS);
  const weights: number[] = [];
  let total = 0;
  for (let h = 0; h < hours; h++) {
    const weight = activity(startMs + h * HOUR_MS + HOUR_MS / 2, startMs, spanMs);
    weights.push(weight);
    total += weight;
  }
  let cumulative = 0;
  let emitted = 0;
  for (let h = 0; h < hours; h++) {
    cumulative += weights[h]!;
    const target = h === hours - 1 ? rows : Math.round((cumulative / total) * rows);
    const hourStart = startMs + h * HOUR_MS;
    const hourEnd = Math.min(endMs, hourStart + HOUR_MS);
    const offsets: number[] = [];
    for (; emitted < target; emitted++) offsets.push(hourStart + Math.floor(random() * (hourEnd - hourStart)));
    offsets.sort((a, b) => a - b);
    yield* offsets;
  }
}

/** Yields batches of generated rows (default 5,000 a batch), oldest first. */
export function* generateUsage(options: GenerateOptions): Generator<UsageEventInput[]> {
  const random = mulberry32(options.seed);
  const endMs = options.end.getTime();
  const startMs = endMs - options.days * DAY_MS;
  const chatModels = GENERATED_MODELS.filter((model) => !model.embedding);
  const embedding = GENERATED_MODELS.find((model) => model.embedding)!;
  const batchSize = options.batchSize ?? 5_000;
  const endUsers = options.endUserIds ?? [];
  const endUserShare = options.endUserShare ?? 0;
  const endUserOf = (action: ActionType): string | null =>
    endUsers.length > 0 && action !== 'document_indexing' && random() < endUserShare
      ? endUsers[Math.floor(random() ** 3 * endUsers.length)]!
      : null;
  let batch: UsageEventInput[] = [];
  for (const ms of timestamps(random, options.rows, startMs, endMs)) {
    const action = pick(random, ACTION_MIX, ([, share]) => share)[0];
    const embeds = action === 'rag_query_embedding' || action === 'document_indexing';
    const model = embeds ? embedding : pick(random, chatModels, (m) => m.weight);
    const source: UsageSource = random() < 0.75 ? 'system' : 'byok';
    const promptMedian = {
      user_interaction: 1800,
      guardrail_check: 600,
      title_generation: 300,
      rag_query_embedding: 40,
      document_indexing: 900,
    }[action];
    const prompt = around(random, promptMedian);
    const outputTokens = embeds ? 0 : around(random, action === 'user_interaction' ? 350 : 40, 0.7);
    // Only platform calls report cache reads; system prompts of chats are often cached.
    const cachedShare = source === 'system' && !embeds && random() < 0.55 ? 0.3 + random() * 0.6 : 0;
    const cacheReadTokens = Math.round(prompt * cachedShare);
    const inputTokens = prompt - cacheReadTokens;
    const cost = (inputTokens * model.price.input + outputTokens * model.price.output + cacheReadTokens * model.price.cacheRead) / 1e6;
    const latencyKnown = random() < (source === 'system' ? 0.97 : 0.6);
    const latencyMs = latencyKnown
      ? Math.round(model.latency.baseMs * (0.6 + random()) + (outputTokens / 1000) * model.latency.perKiloOutputMs * (0.7 + 0.6 * random()))
      : null;
    batch.push({
      id: uuidv7(),
      organizationId: options.organizationId,
      agentId: options.agentIds?.length ? options.agentIds[Math.floor(random() * options.agentIds.length)]! : null,
      userId:
        options.userIds?.length && action === 'user_interaction' ? options.userIds[Math.floor(random() * options.userIds.length)]! : null,
      endUserId: endUserOf(action),
      modelId: model.modelId,
      actionType: action,
      source,
      inputTokens,
      outputTokens,
      cacheReadTokens,
      costUsd: cost.toFixed(10),
      latencyMs,
      createdAt: new Date(ms).toISOString(),
    });
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}
