import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Every model call of the service goes through `callModel` (app/metering/call.ts), which records
 * its usage row in `finally`: the AI SDK's calling functions are imported there and nowhere else
 * in app/, and the models are made only in app/metering (a new caller cannot forget its row).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CALLING = ['generateText', 'streamText', 'generateObject', 'streamObject', 'embed', 'embedMany'];
const FACTORIES = ['createOpenAICompatible', 'createOpenAI', 'createGateway', 'wrapLanguageModel', 'wrapEmbeddingModel'];
const CALL_FILE = 'app/metering/call.ts';

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The names a file imports from `module` (value or type imports, renamed ones by their exported name). */
function namesImported(source: string, module: RegExp): string[] {
  const names: string[] = [];
  for (const match of source.matchAll(/^import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/gm)) {
    if (!module.test(match[2]!)) continue;
    for (const item of match[1]!.split(','))
      names.push(
        item
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0]!,
      );
  }
  // A namespace import would reach every function: listed as `*`.
  for (const match of source.matchAll(/^import\s+\*\s+as\s+\w+\s+from\s+'([^']+)'/gm)) if (module.test(match[1]!)) names.push('*');
  return names.filter(Boolean);
}

const files = sources(join(ROOT, 'app')).map((path) => ({ path: relative(ROOT, path), source: readFileSync(path, 'utf8') }));

test('the AI SDK calling a model is imported only by callModel', (t) => {
  const sites = files.flatMap(({ path, source }) =>
    namesImported(source, /^ai$/)
      .filter((name) => CALLING.includes(name) || name === '*')
      .map((name) => `${path}: ${name}`),
  );
  t.deepEqual(
    sites.filter((site) => !site.startsWith(`${CALL_FILE}:`)),
    [],
  );
  // The scan still sees the one place that calls.
  t.true(sites.some((site) => site.startsWith(`${CALL_FILE}: streamText`)));
});

test('models are made and wrapped only in app/metering', (t) => {
  const sites = files.flatMap(({ path, source }) =>
    namesImported(source, /^(ai|@ai-sdk\/.+)$/)
      .filter((name) => FACTORIES.includes(name))
      .map((name) => `${path}: ${name}`),
  );
  t.deepEqual(
    sites.filter((site) => !site.startsWith('app/metering/')),
    [],
  );
});

test('a model call site outside app/metering would be found', (t) => {
  const source = "import { convertToModelMessages, generateText as g, type UIMessage } from 'ai';\nimport * as sdk from 'ai';\n";
  t.deepEqual(namesImported(source, /^ai$/), ['convertToModelMessages', 'generateText', 'UIMessage', '*']);
});
