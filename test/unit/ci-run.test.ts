// .ci/run's report check, run as CI runs it (node -e over vitest's JSON report): a skipped test
// marked "(needs <tool>)" fails the run by name, and the last line stays the plain summary.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPath, toolMarker } from '../support/system-tools';

let dir: string;
let snippet: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ci-run-'));
  const script = await readFile(new URL('../../.ci/run', import.meta.url), 'utf8');
  snippet = /^node -e '\n([\s\S]*?)\n' \.tmp\/vitest\.json/m.exec(script)?.[1] ?? '';
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

type Status = 'passed' | 'failed' | 'skipped' | 'pending' | 'todo';

async function check(tests: Array<[Status, string]>): Promise<{ code: number; lines: string[] }> {
  const count = (...statuses: Status[]) => tests.filter(([s]) => statuses.includes(s)).length;
  const report = {
    numPassedTests: count('passed'),
    numFailedTests: count('failed'),
    numPendingTests: count('skipped', 'pending'),
    numTodoTests: count('todo'),
    testResults: [{ name: join(process.cwd(), 'test/unit/x.test.ts'), assertionResults: tests.map(([status, fullName]) => ({ status, fullName })) }],
  };
  const file = join(dir, `report-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify(report));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', snippet, file]);
    return { code: 0, lines: stdout.trim().split('\n') };
  } catch (error) {
    const failure = error as { code: number; stdout: string };
    return { code: failure.code, lines: failure.stdout.trim().split('\n') };
  }
}

describe('.ci/run report check', () => {
  it('is found in .ci/run', () => {
    expect(snippet).toContain('numPassedTests');
  });

  it('passes a run whose only skips carry no tool marker, ending in the summary', async () => {
    const result = await check([['passed', 'a works'], ['skipped', 'b is skipped for another reason']]);

    expect(result).toEqual({ code: 0, lines: ['1 passed, 0 failed, 1 skipped'] });
  });

  it('fails a run in which a test needing a tool was skipped, naming it, and still ends in the summary', async () => {
    const result = await check([['passed', 'a works'], ['skipped', `zone ${toolMarker('named-checkzone')} is read back`], ['failed', 'c breaks']]);

    expect(result.code).toBe(1);
    expect(result.lines).toContain(`  test/unit/x.test.ts: zone ${toolMarker('named-checkzone')} is read back`);
    expect(result.lines.at(-1)).toBe('1 passed, 1 failed, 1 skipped');
  });

  it('does not count a marked test that ran', async () => {
    const result = await check([['passed', `zone ${toolMarker('named-checkzone')} is read back`]]);

    expect(result).toEqual({ code: 0, lines: ['1 passed, 0 failed'] });
  });
});

describe('onPath', () => {
  it('finds an executable in PATH and not one that is absent', () => {
    expect(onPath('node', process.env.PATH)).toBe(true);
    expect(onPath('named-checkzone', '')).toBe(false);
    expect(onPath('no-such-tool-anywhere', process.env.PATH)).toBe(false);
  });
});
