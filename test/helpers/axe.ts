import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

type AxeResult = { violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] };

/**
 * axe-core's serious and critical violations on the page as it is now. The page must be opened
 * with `bypassCSP: true`: axe-core is injected as an inline script, which the console's policy refuses.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: await axeSource });
  const result = (await page.evaluate(() =>
    (globalThis as unknown as { axe: { run(options: unknown): Promise<unknown> } }).axe.run({ resultTypes: ['violations'] }),
  )) as AxeResult;
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
}
