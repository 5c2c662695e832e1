// Lists exports that no other module imports (npm run lint runs it; exit 1 when any is found).
// Usage: node bin/check-unused-exports.ts [--local]
//
// Each TypeScript program of the repository (tsconfig.json, dashboard/tsconfig.json) is read with the
// compiler API. An export counts as used when another file imports it by name (static or `import type`,
// `import('./x').Name` in a type, a re-export), or imports the module whole (`import * as`, a dynamic
// `import()`). A module that no file imports is an entry point (a server, a script, a test, a bench), and its
// exports are not reported; neither are a library's public entry points (the `exports` of lib/*/package.json).
// With --local it also lists exports used only inside their own file (there the `export` keyword could go);
// those are not failures, since many are the types of an exported function's parameters.
import { readFileSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = realpathSync(path.join(import.meta.dirname, '..'));
const PROJECTS = ['tsconfig.json', 'dashboard/tsconfig.json'];

/** The modules a library publishes: every export of theirs is public API. */
function libraryEntries(): Set<string> {
  const entries = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value.endsWith('.ts') && !value.endsWith('.d.ts')) entries.add(value);
    } else if (value && typeof value === 'object') {
      for (const [condition, inner] of Object.entries(value)) if (condition !== 'types') visit(inner);
    }
  };
  const all = new Set<string>();
  for (const name of readdirSync(path.join(root, 'lib'))) {
    const manifest = JSON.parse(readFileSync(path.join(root, 'lib', name, 'package.json'), 'utf8')) as { exports?: unknown };
    entries.clear();
    visit(manifest.exports);
    for (const entry of entries) all.add(path.join(root, 'lib', name, entry));
  }
  return all;
}

/** A program, and the files its project owns (it reports on these; other projects' files only count as importers). */
function loadProgram(project: string): { program: ts.Program; own: Set<string> } {
  const configPath = path.join(root, project);
  const read = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configPath));
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noEmit: true } });
  return { program, own: new Set(parsed.fileNames.map((file) => path.resolve(file))) };
}

const ownFile = (file: ts.SourceFile): boolean =>
  !file.isDeclarationFile && file.fileName.startsWith(root + '/') && !file.fileName.includes('/node_modules/');

function check({ program, own }: { program: ts.Program; own: Set<string> }, publicEntries: Set<string>): string[] {
  const checker = program.getTypeChecker();
  const used = new Set<ts.Symbol>();
  const importedModules = new Set<string>();
  const wholeModules = new Set<string>();
  const destructured = new Map<string, Set<string>>();

  const resolve = (symbol: ts.Symbol | undefined): ts.Symbol | undefined => {
    if (!symbol) return undefined;
    return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  };
  const markName = (node: ts.Node): void => {
    const symbol = resolve(checker.getSymbolAtLocation(node));
    if (symbol) used.add(symbol);
  };
  const moduleFile = (specifier: ts.Expression): string | undefined => {
    const symbol = checker.getSymbolAtLocation(specifier);
    const declaration = symbol?.valueDeclaration;
    return declaration && ts.isSourceFile(declaration) ? declaration.fileName : undefined;
  };

  for (const file of program.getSourceFiles()) {
    if (!ownFile(file)) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
        const target = node.moduleSpecifier && moduleFile(node.moduleSpecifier);
        if (target) importedModules.add(target);
        const bindings = ts.isImportDeclaration(node) ? node.importClause : undefined;
        if (bindings?.name) markName(bindings.name);
        const named = bindings?.namedBindings;
        if (named && ts.isNamespaceImport(named) && target) wholeModules.add(target);
        if (named && ts.isNamedImports(named)) for (const element of named.elements) markName(element.name);
        if (ts.isExportDeclaration(node)) {
          if (!node.exportClause && target) wholeModules.add(target);
          else if (node.exportClause && ts.isNamedExports(node.exportClause) && node.moduleSpecifier)
            for (const element of node.exportClause.elements) markName(element.name);
          else if (node.exportClause && ts.isNamespaceExport(node.exportClause) && target) wholeModules.add(target);
        }
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [specifier] = node.arguments;
        const target = specifier && moduleFile(specifier);
        const binding =
          ts.isAwaitExpression(node.parent) && ts.isVariableDeclaration(node.parent.parent) ? node.parent.parent.name : undefined;
        if (target) importedModules.add(target);
        // `const { a, b } = await import('./x.ts')` uses a and b; any other dynamic import, the whole module.
        if (target && binding && ts.isObjectBindingPattern(binding)) {
          const names = destructured.get(target) ?? new Set<string>();
          for (const element of binding.elements) names.add((element.propertyName ?? element.name).getText());
          destructured.set(target, names);
        } else if (target) wholeModules.add(target);
      } else if (ts.isImportTypeNode(node)) {
        const target = ts.isLiteralTypeNode(node.argument) ? moduleFile(node.argument.literal) : undefined;
        if (target) importedModules.add(target);
        if (node.qualifier) markName(ts.isIdentifier(node.qualifier) ? node.qualifier : node.qualifier.left);
        else if (target) wholeModules.add(target);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }

  const problems: string[] = [];
  for (const file of program.getSourceFiles()) {
    if (!own.has(file.fileName) || publicEntries.has(file.fileName)) continue;
    if (!importedModules.has(file.fileName) || wholeModules.has(file.fileName)) continue;
    const moduleSymbol = checker.getSymbolAtLocation(file);
    if (!moduleSymbol) continue;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = resolve(exported);
      if (!symbol || used.has(symbol) || destructured.get(file.fileName)?.has(exported.name)) continue;
      const declaration = exported.declarations?.[0];
      // A re-export (export { x } from / export *) is the other module's export.
      if (!declaration || declaration.getSourceFile() !== file || ts.isExportSpecifier(declaration)) continue;
      const { line } = file.getLineAndCharacterOfPosition(declaration.getStart());
      const local = usedInOwnFile(file, exported, checker);
      const where = `${path.relative(root, file.fileName)}:${line + 1}`;
      problems.push(`${where}  ${exported.name}  ${local ? 'used only in its own file (drop the export)' : 'unused'}`);
    }
  }
  return problems;
}

/** Whether an identifier of the file other than the declaration's own name refers to the symbol. */
function usedInOwnFile(file: ts.SourceFile, symbol: ts.Symbol, checker: ts.TypeChecker): boolean {
  const names = new Set(symbol.declarations?.map((d) => ts.getNameOfDeclaration(d)).filter(Boolean));
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isIdentifier(node) && node.text === symbol.name && !names.has(node)) {
      const target = checker.getSymbolAtLocation(node);
      if (target === symbol || (target && checker.getExportSymbolOfSymbol(target) === symbol)) found = true;
      else if (target && target.flags & ts.SymbolFlags.Alias && checker.getAliasedSymbol(target) === symbol) found = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const local = process.argv.includes('--local');
const entries = libraryEntries();
const found = [...new Set(PROJECTS.flatMap((project) => check(loadProgram(project), entries)))].sort();
const unused = found.filter((line) => line.endsWith('  unused'));
for (const line of local ? found : unused) console.log(line);
if (unused.length > 0) {
  console.log(`\n${unused.length} unused export(s): remove the dead code (or the export keyword, if its own file uses it).`);
  process.exit(1);
}
