import { writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { loadCatalogSeed } from '../seeds/mcp-catalog.ts';

/**
 * Writes `app/mcp-catalog/logos/<slug>.svg` for every seeded catalog entry: a monogram of the entry's
 * name on a colour derived from its seed key. Made by this project (no third-party artwork).
 * Run after adding a seed entry: `node --conditions=agents-source bin/make-logos.ts`.
 */
export function monogramOf(name: string): string {
  const words = name.split(/[\s.\-_]+/).filter(Boolean);
  if (words.length >= 2) return (words[0]![0]! + words[1]![0]!).toUpperCase();
  const word = words[0] ?? '?';
  const second = word.slice(1).match(/[A-Z0-9]/)?.[0];
  return second ? `${word[0]!.toUpperCase()}${second}` : word[0]!.toUpperCase() + (word[1] ?? '').toLowerCase();
}

export function logoSvg(seedKey: string, name: string): string {
  const hue = createHash('sha256').update(seedKey).digest().readUInt16BE(0) % 360;
  const fill = hslToHex(hue, 0.55, 0.42);
  const text = monogramOf(name).replace(/[<&>]/g, '');
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img">',
    `<title>${name.replace(/[<&>]/g, '')}</title>`,
    `<rect width="64" height="64" rx="14" fill="${fill}"/>`,
    `<text x="32" y="41" text-anchor="middle" font-family="Helvetica, Arial, sans-serif" font-size="24" font-weight="700" fill="#fff">${text}</text>`,
    '</svg>',
    '',
  ].join('\n');
}

/** CSS Color 4 §7.1 HSL to RGB, as `#rrggbb` (understood by every SVG renderer). */
function hslToHex(hue: number, saturation: number, lightness: number): string {
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12;
    const a = saturation * Math.min(lightness, 1 - lightness);
    const value = lightness - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(value * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const entry of loadCatalogSeed()) {
    writeFileSync(new URL(`../app/mcp-catalog/${entry.logo}`, import.meta.url), logoSvg(entry.seedKey, entry.name));
  }
}
