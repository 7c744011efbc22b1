// Tests that need a program outside node_modules (BIND's named-checkzone, later a browser). On a
// machine without it they are skipped, and their names say why: every such suite's name ends in
// the marker "(needs <tool>)". .ci/run installs the tools and fails the run if any test carrying
// the marker was skipped, so CI never passes by silently skipping.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe } from 'vitest';

/** The marker .ci/run looks for in the names of skipped tests. */
export const toolMarker = (tool: string): string => `(needs ${tool})`;

/** True when `tool` is an executable file in one of PATH's directories. */
export function onPath(tool: string, path = process.env.PATH ?? ''): boolean {
  return whereOnPath(tool, path) !== undefined;
}

/** The first executable file named `tool` in PATH's directories, as a path; undefined when none. */
export function whereOnPath(tool: string, path = process.env.PATH ?? ''): string | undefined {
  return path
    .split(delimiter)
    .filter((dir) => dir !== '')
    .map((dir) => join(dir, tool))
    .find((file) => {
      try {
        accessSync(file, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

export interface ToolNeed {
  available: boolean;
  /** `describe`, skipped when the tool is absent. */
  describe: typeof describe;
  /** The suite name with the marker appended. */
  name(title: string): string;
}

/**
 * `needsTool('named-checkzone', 'apt-get install bind9-utils')`: a describe that runs only where
 * the tool is, for suites whose names carry the marker. Where it is absent the reason and the way
 * to install it are printed once, and the skipped suites say what they need.
 */
export function needsTool(tool: string, install: string): ToolNeed {
  const available = onPath(tool);
  if (!available) process.stderr.write(`${tool} is not installed: tests marked ${toolMarker(tool)} are skipped. Install it with: ${install}\n`);
  return { available, describe: describe.skipIf(!available) as typeof describe, name: (title) => `${title} ${toolMarker(tool)}` };
}
