/**
 * A generated table inside a docs page, between two HTML comment markers: read it back (the tests
 * compare it with what the code declares) or rewrite it (`npm run docs:tables`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export type Markers = { start: string; end: string };

/** The table between the markers of `page`, or undefined when a marker is missing. */
export function tableBetween(page: string, { start, end }: Markers): string | undefined {
  const from = page.indexOf(start);
  const to = page.indexOf(end);
  if (from < 0 || to < from) return undefined;
  return page.slice(from + start.length, to).trim();
}

/**
 * Run as a script (`module` is the caller's `import.meta.url`): with `--write` replaces the table
 * between the markers of `path`, otherwise prints it. Does nothing when the module is imported.
 */
export function runTableScript(module: string, path: string, markers: Markers, render: () => string): void {
  if (module !== pathToFileURL(process.argv[1] ?? '').href) return;
  const table = render();
  if (!process.argv.includes('--write')) {
    console.log(table);
    return;
  }
  const page = readFileSync(path, 'utf8');
  const from = page.indexOf(markers.start);
  const to = page.indexOf(markers.end);
  if (from < 0 || to < from) throw new Error(`${path} has no ${markers.start} ... ${markers.end} block`);
  writeFileSync(path, `${page.slice(0, from + markers.start.length)}\n${table}\n${page.slice(to)}`);
}
