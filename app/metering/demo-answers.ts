import type { LanguageModelV3ToolResultPart } from '@ai-sdk/provider';

/*
 * What the demo model (demo-model.ts) says after a tool answered: plain sentences, never the
 * tool's JSON, and never a word cut in two. From `search_knowledge_base` passages it answers the
 * question with the sentences of the best passage that share the most words with it.
 */

/** Most characters of an answer's quoted part (whole sentences; one longer sentence is cut at a space). */
const MAX_ANSWER_CHARS = 600;
/** Sentences of the best passage an answer quotes. */
const MAX_SENTENCES = 2;

/** Words that say nothing about what is asked. */
const STOP_WORDS = new Set(
  'a an and are can could did do does for from get has have how i in is it me my of on or please should than that the their them then there these they this to use was we what when where which who why will with you your'.split(
    ' ',
  ),
);

/** A word's stem, crudely: enough that "refunds", "refunded" and "refund" meet. */
const stem = (word: string) => word.replace(/(?:ing|ed|es|s)$/, '');
const wordsOf = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** `text` with its whitespace collapsed, at most `max` characters, cut at a space (with "…") when longer. */
export function clipped(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const space = flat.lastIndexOf(' ', max - 1);
  return `${flat.slice(0, space > 0 ? space : max - 1)}…`;
}

/** The sentences of a passage: its lines joined, split after `.`, `!` or `?`. */
function sentencesOf(text: string): string[] {
  return text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'(])/u)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '');
}

/** How well a sentence answers: 2 for each asked word it holds as is, 1 for each it holds in another form. */
function relevance(sentence: string, asked: string[]): number {
  const words = wordsOf(sentence);
  const stems = new Set(words.map(stem));
  return asked.reduce((score, word) => score + (words.includes(word) ? 2 : stems.has(stem(word)) ? 1 : 0), 0);
}

type Passage = { document: string; text: string };

/** The answer to `question` from the passages, best first: a few sentences of the first, and where they come from. */
export function answerFromPassages(question: string, passages: Passage[]): string {
  const best = passages[0];
  if (!best) return `I found nothing about "${clipped(question, 200)}" in this agent's documents.`;
  const asked = wordsOf(question).filter((word) => !STOP_WORDS.has(word));
  const ranked = sentencesOf(best.text)
    .map((sentence, index) => ({ sentence, index, score: relevance(sentence, asked) }))
    .sort((a, b) => b.score - a.score || a.index - b.index);
  const chosen = ranked.filter((candidate) => candidate.score > 0).slice(0, MAX_SENTENCES);
  const quoted = (chosen.length > 0 ? chosen : ranked.slice(0, 1)).map((candidate) => candidate.sentence);
  let answer = '';
  for (const sentence of quoted) {
    const next = answer === '' ? sentence : `${answer} ${sentence}`;
    if (answer !== '' && next.length > MAX_ANSWER_CHARS) break;
    answer = next;
  }
  return `${clipped(answer, MAX_ANSWER_CHARS)} (From ${best.document}.)`;
}

/** A JSON value as plain words: `key: value` for each scalar, joined with "; ". */
function plainWords(value: unknown, key = ''): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value !== 'object') return [key ? `${key}: ${String(value)}` : String(value)];
  if (Array.isArray(value)) return value.flatMap((item) => plainWords(item, key));
  return Object.entries(value).flatMap(([name, item]) => plainWords(item, name));
}

const isPassages = (value: unknown): value is { query: string; passages: Passage[] } =>
  typeof value === 'object' && value !== null && Array.isArray((value as { passages?: unknown }).passages);

/** What the demo model says of one tool's result. */
export function reportOf(part: LanguageModelV3ToolResultPart): string {
  const { output } = part;
  if (output.type === 'execution-denied') return `The tool ${part.toolName} was not run: ${output.reason ?? 'the call was denied'}.`;
  if (output.type === 'error-text' || output.type === 'error-json')
    return `The tool ${part.toolName} failed: ${clipped(plainWords(output.value).join('; '), 300)}`;
  const value: unknown = output.type === 'text' || output.type === 'json' ? output.value : undefined;
  if (part.toolName === 'search_knowledge_base' && isPassages(value)) return answerFromPassages(value.query, value.passages);
  const words = plainWords(value).join('; ');
  return words ? `The tool ${part.toolName} answered: ${clipped(words, 500)}` : `The tool ${part.toolName} answered nothing.`;
}
