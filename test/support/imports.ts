// The project's own import graph, read with TypeScript's pre-processor (no regular expressions
// over source): which production file imports which, and whether only for types.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const rel = join(dir, name);
    if (statSync(join(root, rel)).isDirectory()) out.push(...sourceFiles(root, rel));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

function resolveLocal(root: string, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(root, dirname(from), specifier);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(root, candidate);
  }
  return undefined;
}

/** Every relative import between the .ts files under `dirs`, with whether it is `import type`. */
export function importGraph(root: string, dirs: readonly string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of dirs.flatMap((d) => sourceFiles(root, d))) {
    const text = readFileSync(join(root, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
    for (const statement of source.statements) {
      const declaration =
        ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement : undefined;
      if (!declaration?.moduleSpecifier || !ts.isStringLiteral(declaration.moduleSpecifier)) continue;
      const to = resolveLocal(root, file, declaration.moduleSpecifier.text);
      if (!to) continue;
      const typeOnly = ts.isImportDeclaration(declaration)
        ? Boolean(declaration.importClause?.isTypeOnly) ||
          Boolean(
            declaration.importClause &&
              !declaration.importClause.name &&
              declaration.importClause.namedBindings &&
              ts.isNamedImports(declaration.importClause.namedBindings) &&
              declaration.importClause.namedBindings.elements.length > 0 &&
              declaration.importClause.namedBindings.elements.every((e) => e.isTypeOnly),
          )
        : declaration.isTypeOnly;
      edges.push({ from: file, to, typeOnly });
    }
    // import('…') expressions count too (lazy loading is still a dependency).
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [arg] = node.arguments;
        const to = arg && ts.isStringLiteral(arg) ? resolveLocal(root, file, arg.text) : undefined;
        if (to) edges.push({ from: file, to, typeOnly: false });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return edges;
}

/** The import cycles of a graph, each as the list of files around it (Tarjan's SCCs of size > 1). */
export function cyclesOf(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let counter = 0;
  const strong = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (next.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of new Set(edges.flatMap((e) => [e.from, e.to]))) if (!index.has(v)) strong(v);
  return cycles;
}
