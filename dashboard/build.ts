/**
 * Builds the dashboard into static files: `index.html` plus content-hashed assets under
 * `assets/`, so the server can answer assets with a year-long immutable cache and the page
 * with `no-cache`; and the web channel's widget, `widget.js` (one classic script, no imports: a
 * page pastes its URL, so it cannot be content-hashed). Run by `npm start` (its `prestart`), by
 * `npm run build:dashboard` and by the browser tests (into their own folder).
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = fileURLToPath(new URL('.', import.meta.url));

/** Where `npm run build:dashboard` writes and where the server looks by default. */
export const DEFAULT_DASHBOARD_DIR = join(here, 'dist');

export type DashboardAsset = {
  name: string;
  bytes: number;
  /** The source module this output is the entry of (`main.ts`, or a page loaded by `import()`). */
  entryPoint: string | undefined;
  /** npm packages bundled into this output. */
  packages: string[];
  imports: { name: string; dynamic: boolean }[];
};

export type DashboardBuild = {
  outDir: string;
  script: string;
  /** Bytes of `widget.js`. */
  widgetBytes: number;
  stylesheet: string;
  /** Every output under `assets/` with the assets each one imports (statically or with `import()`). */
  assets: DashboardAsset[];
};

/** Bundles `dashboard/src` into `outDir` (emptied first). Minified unless `minify` is false. */
export async function buildDashboard(outDir = DEFAULT_DASHBOARD_DIR, options: { minify?: boolean } = {}): Promise<DashboardBuild> {
  const target = resolve(outDir);
  await rm(target, { recursive: true, force: true });
  const assets = join(target, 'assets');
  await mkdir(assets, { recursive: true });
  const result = await build({
    entryPoints: [join(here, 'src', 'main.ts')],
    bundle: true,
    // Each page is an `import()` of its own, so a page loads only the chunks it uses.
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify: options.minify ?? true,
    sourcemap: false,
    legalComments: 'eof',
    outdir: assets,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    metafile: true,
    logLevel: 'warning',
  });
  const widget = await buildWidget(target, options.minify ?? true);
  const entries = Object.entries(result.metafile.outputs);
  const outputs = entries.map(([file]) => basename(file));
  const script = entries.find(([file, output]) => file.endsWith('.js') && output.entryPoint?.endsWith('main.ts'))?.[0];
  const stylesheets = outputs.filter((name) => name.endsWith('.css'));
  const stylesheet = stylesheets.length === 1 ? stylesheets[0] : undefined;
  if (!script || !stylesheet) throw new Error(`dashboard build produced ${outputs.join(', ')}`);
  const template = await readFile(join(here, 'src', 'index.html'), 'utf8');
  const page = template
    .replace('{{stylesheet}}', `/dashboard/assets/${stylesheet}`)
    .replace('{{script}}', `/dashboard/assets/${basename(script)}`);
  await writeFile(join(target, 'index.html'), page);
  const assetList = entries.map(([file, output]) => ({
    name: basename(file),
    bytes: output.bytes,
    entryPoint: output.entryPoint,
    packages: [
      ...new Set(
        Object.entries(output.inputs).flatMap(([input, { bytesInOutput }]) =>
          bytesInOutput > 0 ? (/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? []) : [],
        ),
      ),
    ],
    imports: output.imports
      .filter((imported) => !imported.external)
      .map((imported) => ({ name: basename(imported.path), dynamic: imported.kind === 'dynamic-import' })),
  }));
  return { outDir: target, script: basename(script), widgetBytes: widget, stylesheet, assets: assetList };
}

/** `dashboard/src/widget/main.ts` as `outDir/widget.js`: an IIFE, so nothing it declares reaches the page's globals. */
async function buildWidget(outDir: string, minify: boolean): Promise<number> {
  const result = await build({
    entryPoints: [join(here, 'src', 'widget', 'main.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2022'],
    minify,
    sourcemap: false,
    legalComments: 'none',
    outfile: join(outDir, 'widget.js'),
    metafile: true,
    logLevel: 'warning',
  });
  return Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const built = await buildDashboard(process.argv[2]);
  process.stdout.write(
    `dashboard built into ${built.outDir} (${built.script}, ${built.stylesheet}) in ${Math.round(performance.now() - started)} ms\n`,
  );
}
