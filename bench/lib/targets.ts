// Issue 31's targets as the benchmarks measure them: each benchmark notes the targets its figures
// answer (noteTarget, which also gives the line for its own section), and bench/run.ts writes them
// all side by side at the top of bench/results.md ("Issue 31 in this run").

export interface IssueTarget {
  /** The issue's item (1–6). */
  item: number;
  /** The target, in the issue's words. */
  what: string;
  /** What this run measured, with the store's figure beside it where the target is a ratio. */
  figure: string;
  met: boolean;
}

const metWord = (ok: boolean): string => `**${ok ? 'met' : 'not met'}**`;

const noted: IssueTarget[] = [];

/** The line a benchmark's own section shows for a target. */
export const targetLine = (target: IssueTarget): string => `- ${target.what}: ${target.figure}, ${metWord(target.met)}.`;

/** Notes a target for the summary; its line, for the benchmark's own section. */
export function noteTarget(target: IssueTarget): string {
  noted.push(target);
  return targetLine(target);
}

/** The targets noted since the last call. */
export const takeTargets = (): IssueTarget[] => noted.splice(0);

/** The summary's table row of a target, naming the section that shows it. */
export const targetRow = (t: IssueTarget & { section: string }): string => `| ${t.item} | ${t.what} | ${t.figure} | ${metWord(t.met)} | ${t.section} |`;
