/**
 * A synthetic help-center corpus for bench:knowledge: deterministic (a seeded generator), words
 * drawn from a vocabulary of 50,000 made-up words with a Zipf-like frequency (a few common, most
 * rare), as natural text is. Each document has 5 headed sections of 4 paragraphs of about 70
 * words (about 2,000 characters a section): about 10 chunks of the chunker's 1,200 characters.
 */
const VOCABULARY_SIZE = 50_000;

export function generator(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 're', 'su', 'ta', 'ne', 'vo', 'pi', 'da', 'ge', 'ru', 'fa', 'zo', 'bi', 'he'];
export const VOCABULARY = Array.from({ length: VOCABULARY_SIZE }, (_, i) => {
  let word = '';
  for (let n = i + 17; n > 0; n = Math.floor(n / SYLLABLES.length)) word += SYLLABLES[n % SYLLABLES.length];
  return word;
});

/** A word index with P(i) ~ 1/(i+1): the rank-frequency law of natural text. */
export const zipf = (random: () => number) =>
  Math.min(VOCABULARY_SIZE - 1, Math.floor(Math.exp(random() * Math.log(VOCABULARY_SIZE + 1)) - 1));

const sentence = (random: () => number, words: number) => `${Array.from({ length: words }, () => VOCABULARY[zipf(random)]).join(' ')}.`;

export function document(index: number): { name: string; text: string } {
  const random = generator(index + 1);
  const sections = Array.from({ length: 5 }, () => {
    const heading = `## ${sentence(random, 3).slice(0, -1)}`;
    const paragraphs = Array.from({ length: 4 }, () => Array.from({ length: 6 }, () => sentence(random, 12)).join(' '));
    return [heading, ...paragraphs].join('\n\n');
  });
  return { name: `article-${index}.md`, text: `# Article ${index}\n\n${sections.join('\n\n')}\n` };
}

/**
 * A question of 2 to 4 content words as users type them: words of frequency rank 100 and below
 * (the top 100 are the function words a question's stop words stand for), Zipf-distributed.
 */
export function question(random: () => number): string {
  const words = 2 + Math.floor(random() * 3);
  return Array.from({ length: words }, () => VOCABULARY[Math.min(VOCABULARY_SIZE - 1, 100 + zipf(random))]).join(' ');
}
