// Stack traces that name our source files, from a minified Lambda bundle. Node's
// --enable-source-maps would do it by reading and parsing the bundle's whole map as the bundle
// loads, on every cold start (10–20 ms here, bench/results.md); this reads the map beside the
// bundle only when an error is logged, once per process. Frames keep their minified function
// names; their file, line and column become the original ones. Unbundled (npm start, tests) stacks
// already name the sources and pass through unchanged.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface StackMapper {
  (stack: string): string;
}

/** A mapper for frames of `moduleUrl` (the bundle), whose linked map is `<file>.map`. */
export function stackMapperFor(moduleUrl: string): StackMapper {
  const frame = new RegExp(`${moduleUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+):(\\d+)`, 'g');
  let map: SourceMap | null | undefined;
  const load = (): SourceMap | null => {
    try {
      return new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(moduleUrl)}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
    } catch {
      return null; // no map beside it: not a bundle, or shipped without one
    }
  };
  return (stack) => {
    if (!stack.includes(moduleUrl)) return stack;
    map ??= load();
    const found = map;
    if (!found) return stack;
    return stack.replace(frame, (whole, line: string, column: string) => {
      const entry = found.findEntry(Number(line) - 1, Number(column) - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
      if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return whole;
      // esbuild writes sources relative to the bundle's folder at build time: keep the project path.
      return `${entry.originalSource.replace(/^(\.\.\/)+/, '')}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    });
  };
}

/** Maps the frames of the bundle this module was bundled into. */
export const sourceMappedStack: StackMapper = stackMapperFor(import.meta.url);
