import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { clipped, reportOf } from './demo-answers.ts';

/** The model id usage events carry for the demo model. */
export const DEMO_MODEL_ID = 'demo/built-in';

const NOTICE = 'I am the built-in demo model (no AI_GATEWAY_API_KEY is configured), so this answer is canned and offline.';

/**
 * The model that answers outside production when the deployment has no provider key: offline
 * and deterministic (the same prompt gives the same answer). Asked to "use", "call" or "run" one
 * of the offered tools by name, it calls that tool (input built from the request, see `inputFor`);
 * asked a question while `search_knowledge_base` is offered, it searches the agent's documents for
 * it; given a tool's result, it says it in plain sentences (demo-answers.ts): from passages, the
 * sentences that answer the question and the document they come from. Any other message gets an
 * answer saying it is the demo model.
 */
export function demoModel(): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'demo',
    modelId: DEMO_MODEL_ID,
    supportedUrls: {},
    // A non-streamed call (a title, a guardrail check) gets the same answer's text.
    doGenerate: (options) => {
      const reply = answer(options);
      const text = 'text' in reply ? reply.text : JSON.stringify(reply.input);
      return Promise.resolve({
        content: [{ type: 'text', text }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: usageOf(options, text),
        warnings: [],
      });
    },
    doStream: (options) => Promise.resolve({ stream: streamOf(answer(options), options) }),
  };
}

type Answer = { text: string } | { toolName: string; input: Record<string, unknown> };

/** The built-in tool the demo model searches the agent's documents with. */
const KNOWLEDGE_TOOL = 'search_knowledge_base';

/** A message that asks something: ends with "?" or starts as a question does. */
const isQuestion = (text: string) =>
  /\?\s*$/.test(text) || /^(?:how|what|when|where|why|who|which|can|could|do|does|did|is|are|will|should|may)\b/i.test(text);

function answer(options: LanguageModelV3CallOptions): Answer {
  const last = options.prompt.at(-1);
  if (last?.role === 'tool') {
    const results = last.content.flatMap((part) => (part.type === 'tool-result' ? [part] : []));
    return { text: results.map(reportOf).join(' ') };
  }
  const said =
    last?.role === 'user'
      ? last.content
          .flatMap((part) => (part.type === 'text' ? [part.text] : []))
          .join(' ')
          .trim()
      : '';
  const tools = (options.tools ?? []).filter((tool): tool is LanguageModelV3FunctionTool => tool.type === 'function');
  const wanted = /\b(use|call|run)\b/i.test(said) ? tools.find((tool) => said.includes(tool.name)) : undefined;
  if (wanted) return { toolName: wanted.name, input: inputFor(wanted, said) };
  const knowledge = tools.find((tool) => tool.name === KNOWLEDGE_TOOL);
  if (knowledge && isQuestion(said)) return { toolName: KNOWLEDGE_TOOL, input: { query: clipped(said, 500) } };
  const offer = tools.length > 0 ? ` Ask me to "use ${tools[0]!.name}" to see a tool call.` : '';
  return { text: `${NOTICE} You said: "${clipped(said, 500)}".${offer}` };
}

/**
 * A string property gets the request without the words asking for the tool ("please use
 * search_knowledge_base:"), or a URL when the property is `url` and the request has one; other
 * properties are left out.
 */
function inputFor(tool: LanguageModelV3FunctionTool, said: string): Record<string, unknown> {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  const url = /https?:\/\/\S+/.exec(said)?.[0];
  // The name is a literal: an MCP server names its tools, and `(a+)+` in a name must not become a pattern.
  const literal = tool.name.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
  const asked = said.replace(new RegExp(`^(?:please\\s+)?(?:use|call|run)\\s+${literal}(?!\\w)\\s*[:,-]?\\s*`, 'i'), '').trim() || said;
  const input: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (schema.type !== 'string') continue;
    input[name] = name === 'url' && url ? url : asked;
  }
  return input;
}

const tokens = (text: string) => Math.ceil(text.length / 4);

function usageOf(options: LanguageModelV3CallOptions, outputText: string): LanguageModelV3Usage {
  const promptTokens = tokens(JSON.stringify(options.prompt));
  return {
    inputTokens: { total: promptTokens, noCache: promptTokens, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: tokens(outputText), text: tokens(outputText), reasoning: 0 },
  };
}

function streamOf(reply: Answer, options: LanguageModelV3CallOptions): ReadableStream<LanguageModelV3StreamPart> {
  const promptTokens = tokens(JSON.stringify(options.prompt));
  const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  let outputText: string;
  if ('text' in reply) {
    outputText = reply.text;
    parts.push({ type: 'text-start', id: 't0' });
    for (const word of reply.text.split(/(?<= )/)) parts.push({ type: 'text-delta', id: 't0', delta: word });
    parts.push({ type: 'text-end', id: 't0' });
  } else {
    outputText = JSON.stringify(reply.input);
    parts.push({ type: 'tool-call', toolCallId: `demo-call-${promptTokens}`, toolName: reply.toolName, input: outputText });
  }
  parts.push({
    type: 'finish',
    usage: usageOf(options, outputText),
    finishReason: { unified: 'text' in reply ? 'stop' : 'tool-calls', raw: undefined },
  });
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}
