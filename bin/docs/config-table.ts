/**
 * The environment table of docs/configuration.md, generated from the declaration in
 * app/config-variables.ts. `npm run docs:tables` rewrites the table between the page's markers;
 * test/core/config-table.test.ts fails when the page and the declaration differ.
 */
import { fileURLToPath } from 'node:url';
import { variablesOf } from '../../app/config.ts';
import type { Variable } from '../../app/env-variable.ts';
import { runTableScript, tableBetween } from './marked-table.ts';

export const CONFIG_PAGE = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
const MARKERS = {
  start: '<!-- config-table:start (generated from app/config-variables.ts by bin/docs/config-table.ts) -->',
  end: '<!-- config-table:end -->',
};

/** One line per variable, in declaration order: name, default text (or what absence means), meaning. */
export function renderConfigTable(variables: readonly Variable<unknown>[] = variablesOf()): string {
  const rows = variables.map((v) => `| \`${v.name}\` | ${v.default === undefined ? v.absent : `\`${v.default}\``} | ${v.meaning} |`);
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The table between the markers of `page`, or undefined when a marker is missing. */
export const tableIn = (page: string) => tableBetween(page, MARKERS);

runTableScript(import.meta.url, CONFIG_PAGE, MARKERS, () => renderConfigTable());
