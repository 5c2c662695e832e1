/**
 * The environment table of docs/configuration.md, generated from the declaration in
 * app/config-variables.ts. `npm run docs:tables` rewrites the table between the page's markers;
 * test/core/config-table.test.ts fails when the page and the declaration differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { variablesOf } from '../../app/config.ts';
import type { Variable } from '../../app/env-variable.ts';

export const CONFIG_PAGE = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
export const START = '<!-- config-table:start (generated from app/config-variables.ts by bin/docs/config-table.ts) -->';
export const END = '<!-- config-table:end -->';

/** One line per variable, in declaration order: name, default text (or what absence means), meaning. */
export function renderConfigTable(variables: readonly Variable<unknown>[] = variablesOf()): string {
  const rows = variables.map((v) => `| \`${v.name}\` | ${v.default === undefined ? v.absent : `\`${v.default}\``} | ${v.meaning} |`);
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The table between the markers of `page`, or undefined when a marker is missing. */
export function tableIn(page: string): string | undefined {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) return undefined;
  return page.slice(start + START.length, end).trim();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const table = renderConfigTable();
  if (process.argv.includes('--write')) {
    const page = readFileSync(CONFIG_PAGE, 'utf8');
    const start = page.indexOf(START);
    const end = page.indexOf(END);
    if (start < 0 || end < start) throw new Error(`docs/configuration.md has no ${START} ... ${END} block`);
    writeFileSync(CONFIG_PAGE, `${page.slice(0, start + START.length)}\n${table}\n${page.slice(end)}`);
  } else {
    console.log(table);
  }
}
