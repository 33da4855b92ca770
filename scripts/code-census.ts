// The size bar of issue 24, measured with the TypeScript parser over src/**/*.ts:
// no function over 80 own lines (its span minus the spans of the functions nested in it) or 250 lines in all,
// no file over 500 lines. Exits 1 when something is over the bar.
//   npx tsx scripts/code-census.ts [--json] [--top N]
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const MAX_OWN_LINES = 80;
const MAX_TOTAL_LINES = 250;
const MAX_FILE_LINES = 500;

interface FunctionSize {
  file: string;
  name: string;
  line: number;
  own: number;
  total: number;
}

interface FileSize {
  file: string;
  lines: number;
}

const root = fileURLToPath(new URL('..', import.meta.url));

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts')) files.push(path);
  }
  return files.sort();
}

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.FunctionExpression
  | ts.ArrowFunction
  | ts.MethodDeclaration
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration;

function isFunctionNode(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

function propertyName(name: ts.PropertyName | ts.BindingName, source: ts.SourceFile): string {
  return ts.isIdentifier(name) || ts.isPrivateIdentifier(name) ? name.text : name.getText(source);
}

/** The function's own name, else the variable, property or call it is handed to. */
function functionName(node: FunctionNode, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return propertyName(node.name, source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return propertyName(parent.name, source);
  }
  if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
    return parent.left.getText(source);
  }
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) {
    return `(callback of ${parent.expression.getText(source).replace(/\s+/g, '')})`;
  }
  return '(anonymous)';
}

function measureFile(path: string, functions: FunctionSize[]): FileSize {
  const text = readFileSync(path, 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const file = relative(root, path);
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;

  // Returns the total line span of the outermost functions found under `node`.
  function visit(node: ts.Node): number {
    if (!isFunctionNode(node)) {
      let spans = 0;
      node.forEachChild((child) => {
        spans += visit(child);
      });
      return spans;
    }
    const line = lineOf(node.getStart(source));
    const total = lineOf(node.getEnd()) - line + 1;
    let nested = 0;
    node.forEachChild((child) => {
      nested += visit(child);
    });
    functions.push({ file, name: functionName(node, source), line, own: total - nested, total });
    return total;
  }

  visit(source);
  const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
  return { file, lines };
}

function parseArguments(argv: string[]): { json: boolean; top: number } {
  const json = argv.includes('--json');
  const topIndex = argv.indexOf('--top');
  const top = topIndex === -1 ? 0 : Number(argv[topIndex + 1]);
  if (!Number.isInteger(top) || top < 0) throw new Error('--top takes a whole number');
  return { json, top };
}

function label(fn: FunctionSize): string {
  return `${fn.name} (${fn.file}:${fn.line}) ${fn.own} own / ${fn.total} total`;
}

const options = parseArguments(process.argv.slice(2));
const functions: FunctionSize[] = [];
const files = sourceFiles(join(root, 'src')).map((path) => measureFile(path, functions));

const overFunctions = functions
  .filter((fn) => fn.own > MAX_OWN_LINES || fn.total > MAX_TOTAL_LINES)
  .sort((a, b) => b.own - a.own || b.total - a.total);
const overFiles = files.filter((f) => f.lines > MAX_FILE_LINES).sort((a, b) => b.lines - a.lines);
const totals = {
  files: files.length,
  functions: functions.length,
  over60Own: functions.filter((fn) => fn.own > 60).length,
  over80Own: functions.filter((fn) => fn.own > 80).length,
  over100Total: functions.filter((fn) => fn.total > 100).length,
  over250Total: functions.filter((fn) => fn.total > 250).length,
};
const top = [...functions].sort((a, b) => b.own - a.own || b.total - a.total).slice(0, options.top);

if (options.json) {
  console.log(JSON.stringify({ overFunctions, overFiles, totals, ...(options.top > 0 ? { top } : {}) }, null, 2));
} else {
  console.log(`Functions over ${MAX_OWN_LINES} own or ${MAX_TOTAL_LINES} total lines: ${overFunctions.length}`);
  for (const fn of overFunctions) console.log(`  ${label(fn)}`);
  console.log(`Files over ${MAX_FILE_LINES} lines: ${overFiles.length}`);
  for (const f of overFiles) console.log(`  ${f.file} ${f.lines}`);
  console.log(
    `Totals: ${totals.functions} functions in ${totals.files} files; ${totals.over60Own} over 60 own, ` +
      `${totals.over80Own} over 80 own, ${totals.over100Total} over 100 total, ${totals.over250Total} over 250 total`,
  );
  if (top.length > 0) {
    console.log(`Largest ${top.length} by own lines:`);
    for (const fn of top) console.log(`  ${label(fn)}`);
  }
}
process.exitCode = overFunctions.length > 0 || overFiles.length > 0 ? 1 : 0;
