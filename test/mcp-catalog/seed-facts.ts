import { readFileSync } from 'node:fs';

/**
 * The seed facts table (the interface's MCP seed facts, kept beside this file),
 * parsed independently of the seed data, so the seed is checked against the source it came from.
 */
export type FactVariant = { type: 'free' | 'apikey' | 'oauth'; url: string; header?: string; prefix?: string };
export type Fact = { name: string; url: string; transport: string; variants: FactVariant[]; tags: string[] };

export function readSeedFacts(): Fact[] {
  const text = readFileSync(new URL('./fixtures/mcp-seed-facts.md', import.meta.url), 'utf8');
  const rows = text.split('\n').filter((line) => /^\| \d+ \|/.test(line));
  return rows.map((line) => {
    const [, name, url, transport, variants, tags] = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    return {
      name: name!,
      url: url!,
      transport: transport!,
      tags: tags!.split(',').map((tag) => tag.trim()),
      variants: variants!.split(';').map((part) => parseVariant(part.trim(), url!)),
    };
  });
}

function parseVariant(part: string, url: string): FactVariant {
  if (part === 'free' || part === 'oauth') return { type: part, url };
  if (!part.startsWith('apikey')) throw new Error(`unexpected variant "${part}"`);
  const ownUrl = /at its own URL (https:\/\/\S+)/.exec(part)?.[1];
  const header = /`([^`:]+): ([^`]*)`/.exec(part);
  if (!header) throw new Error(`no header in "${part}"`);
  const value = header[2]!;
  // The pasted token is the `<...>` part, or the last word (`Bearer hf_...`); what precedes it is the prefix.
  const prefix = value.includes('<') ? value.slice(0, value.indexOf('<')) : value.slice(0, value.lastIndexOf(' ') + 1);
  return { type: 'apikey', url: ownUrl ?? url, header: header[1]!, prefix };
}
