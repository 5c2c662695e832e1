/**
 * Splitting a document's text into passages along its structure (docs/agents-and-tools.md,
 * "Knowledge base"). The text is read as Markdown: a line starting with 1-6 `#` and a space is a
 * heading, a blank line ends a paragraph (lines end at `\n`, `\r\n` or a lone `\r`). A chunk never crosses a heading; within a section, whole
 * paragraphs are packed up to `CHUNK_TARGET_CHARS`; a paragraph longer than that is cut at
 * sentence ends (at a space, or hard, when a sentence is longer still). A chunk that continues
 * its section starts with the last `CHUNK_OVERLAP_CHARS` (at most, from a word start) of the
 * previous one, so a passage cut in two is still found whole in one of them. Each chunk carries
 * the heading path it sits under (`Billing > Refunds`), which search weighs above the text.
 */
export const CHUNK_TARGET_CHARS = 1_200;
export const CHUNK_OVERLAP_CHARS = 200;
/** A heading path longer than this is cut (a document of nothing but headings cannot make it huge). */
const MAX_HEADING_CHARS = 300;

export type Chunk = { heading: string; body: string };

type Section = { heading: string; paragraphs: string[] };

const isBlank = (char: string | undefined) => char === ' ' || char === '\t';

/**
 * The heading a line is, read by hand in one pass (a pattern such as `^(#{1,6})[ \t]+(.+?)[ \t#]*$`
 * backtracks cubically on a line of `#` and spaces that does not end as it expects): 1-6 `#`,
 * a space or tab, then the title without its closing run of `#` (when a space precedes it, as
 * in CommonMark, so `C#` stays) and without the spaces around it.
 */
export function headingOf(line: string): { level: number; title: string } | undefined {
  let level = 0;
  while (line[level] === '#') level++;
  if (level < 1 || level > 6 || !isBlank(line[level])) return undefined;
  let start = level;
  while (isBlank(line[start])) start++;
  let end = line.length;
  while (end > start && isBlank(line[end - 1])) end--;
  let hashes = end;
  while (hashes > start && line[hashes - 1] === '#') hashes--;
  if (hashes === start || isBlank(line[hashes - 1])) end = hashes;
  while (end > start && isBlank(line[end - 1])) end--;
  return { level, title: line.slice(start, end) };
}

/** Sections of the text: the heading path and its paragraphs (whitespace inside a paragraph collapsed). */
function sectionsOf(text: string): Section[] {
  const sections: Section[] = [];
  const path: string[] = [];
  let current: Section = { heading: '', paragraphs: [] };
  let paragraph: string[] = [];
  const endParagraph = () => {
    if (paragraph.length === 0) return;
    const joined = paragraph.join(' ').replace(/\s+/g, ' ').trim();
    if (joined !== '') current.paragraphs.push(joined);
    paragraph = [];
  };
  for (const line of text.split(/\r\n|[\n\r]/)) {
    const heading = headingOf(line);
    if (heading) {
      endParagraph();
      if (current.paragraphs.length > 0) sections.push(current);
      path.length = Math.min(path.length, heading.level - 1);
      // Each title is cut before the path is joined: the join's cost stays bounded per heading.
      path[heading.level - 1] = heading.title.trim().slice(0, MAX_HEADING_CHARS);
      current = { heading: path.filter(Boolean).join(' > ').slice(0, MAX_HEADING_CHARS), paragraphs: [] };
    } else if (line.trim() === '') {
      endParagraph();
    } else {
      paragraph.push(line);
    }
  }
  endParagraph();
  if (current.paragraphs.length > 0) sections.push(current);
  return sections;
}

/** Pieces of at most `max` characters: cut after a sentence end, else at a space, else hard. */
function pieces(paragraph: string, max: number): string[] {
  const out: string[] = [];
  let rest = paragraph;
  while (rest.length > max) {
    const window = rest.slice(0, max + 1);
    const sentence = Math.max(window.lastIndexOf('. '), window.lastIndexOf('? '), window.lastIndexOf('! '));
    const space = window.lastIndexOf(' ');
    const cut = sentence > max / 2 ? sentence + 1 : space > max / 2 ? space : max;
    out.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest !== '') out.push(rest);
  return out;
}

/** The end of `text`, at most `chars` long, starting at a word. */
function tail(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const cut = text.indexOf(' ', text.length - chars);
  return cut < 0 ? '' : text.slice(cut + 1);
}

/** The document's chunks, in reading order. Empty when the text has no words. */
export function chunkText(text: string): Chunk[] {
  const chunks: Chunk[] = [];
  for (const section of sectionsOf(text)) {
    let body = '';
    const flush = () => {
      if (body.trim() === '') return;
      chunks.push({ heading: section.heading, body: body.trim() });
      body = tail(body.trim(), CHUNK_OVERLAP_CHARS);
    };
    let fresh = true;
    for (const paragraph of section.paragraphs) {
      for (const piece of pieces(paragraph, CHUNK_TARGET_CHARS - CHUNK_OVERLAP_CHARS)) {
        if (!fresh && body.length + piece.length + 2 > CHUNK_TARGET_CHARS) {
          flush();
          fresh = true;
        }
        body = body === '' ? piece : `${body}\n\n${piece}`;
        fresh = false;
      }
    }
    if (!fresh) flush();
  }
  return chunks;
}
