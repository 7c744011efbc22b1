// Each AWS::Lambda::Function of the template, run as Lambda runs it: its code from the cloud
// assembly (the asset `cdk deploy` would upload), its Handler, its template Environment resolved
// against the rehearsal, Lambda's own variables (region, credentials of its role, function name),
// its Timeout and MemorySize, in an execution environment of its own (a worker thread with its own
// process.env and module registry), started at the first invocation (a cold start) and kept warm.
// One invocation runs at a time per function, as with a reserved concurrency of 1.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { REHEARSAL_ACCOUNT } from './template';

export interface LambdaError {
  errorType: string;
  errorMessage: string;
  trace?: string[];
}

export type InvokeResult = { ok: true; result: unknown } | { ok: false; error: LambdaError };

/** One function as the template defines it, resolved. */
export interface FunctionSpec {
  logicalId: string;
  /** The physical name (Ref). */
  name: string;
  description?: string;
  handler: string;
  runtime: string;
  /** The asset's directory in the cloud assembly. */
  codeDirectory: string;
  memoryMb: number;
  timeoutSeconds: number;
  /** The template's Environment.Variables, resolved. */
  environment: Record<string, string>;
  roleLogicalId: string;
  logGroupName: string;
}

/** One line a function wrote (what CloudWatch Logs would hold). */
export interface LogLine {
  function: string;
  stream: 'stdout' | 'stderr';
  line: string;
}

/** Lambda sets these itself; a template that sets one is refused at deploy. */
export const RESERVED_VARIABLES = [
  '_HANDLER',
  '_X_AMZN_TRACE_ID',
  'AWS_DEFAULT_REGION',
  'AWS_REGION',
  'AWS_EXECUTION_ENV',
  'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
  'AWS_LAMBDA_FUNCTION_VERSION',
  'AWS_LAMBDA_INITIALIZATION_TYPE',
  'AWS_LAMBDA_LOG_GROUP_NAME',
  'AWS_LAMBDA_LOG_STREAM_NAME',
  'AWS_ACCESS_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_LAMBDA_RUNTIME_API',
  'LAMBDA_TASK_ROOT',
  'LAMBDA_RUNTIME_DIR',
];

/** Lambda's limit on a function's variables: 4 KB, names and values together. */
const ENVIRONMENT_LIMIT_BYTES = 4096;

/** What Lambda would refuse of a function's environment at deploy; empty when it would take it. */
export function environmentProblems(spec: Pick<FunctionSpec, 'logicalId' | 'environment'>): string[] {
  const problems: string[] = [];
  const reserved = Object.keys(spec.environment).filter((name) => RESERVED_VARIABLES.includes(name));
  if (reserved.length) problems.push(`${spec.logicalId}: the environment sets Lambda's reserved ${reserved.join(', ')}`);
  const size = Object.entries(spec.environment).reduce((sum, [k, v]) => sum + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  if (size > ENVIRONMENT_LIMIT_BYTES) problems.push(`${spec.logicalId}: the environment is ${size} bytes, past Lambda's 4 KB`);
  return problems;
}

/**
 * The file and export a Handler names, as the Node.js runtime finds them: `dir/index.handler` is
 * the export `handler` of `dir/index.js`, `.mjs` or `.cjs` in the task root, in that order.
 */
export function handlerFile(codeDirectory: string, handler: string): { file: string; exportName: string } | LambdaError {
  const dot = handler.lastIndexOf('.');
  if (dot <= 0) return { errorType: 'Runtime.MalformedHandlerName', errorMessage: `Bad handler ${handler}: not of the form module.export` };
  const module = handler.slice(0, dot);
  const exportName = handler.slice(dot + 1);
  for (const extension of ['.js', '.mjs', '.cjs']) {
    const file = join(codeDirectory, module + extension);
    if (existsSync(file)) return { file, exportName };
  }
  return { errorType: 'Runtime.ImportModuleError', errorMessage: `Error: Cannot find module '${module}' in ${codeDirectory}` };
}

interface Environment {
  worker: Worker;
  ready: Promise<LambdaError | undefined>;
  pending: Map<string, (result: InvokeResult) => void>;
}

/** A public host the rehearsal plays (rehearsal/internet.mjs): its address and port, served on loopback. */
export interface PlayedHost {
  /** An IP literal, public (a private one would prove nothing: the product's guard refuses it). */
  address: string;
  port: number;
  to: { host: string; port: number };
}

/** The internet of the execution environments: the hosts played, and the CA certificates (PEM) that signed theirs. */
export interface Internet {
  hosts: PlayedHost[];
  ca: string[];
}

export interface LambdaHostOptions {
  /** Lambda's variables beside the template's: region, credentials, the rehearsal's service endpoints. */
  platformVariables: Record<string, string>;
  /** The public hosts the functions reach (none by default: every other public address is unreachable). */
  internet?: Internet;
  onLog?: (line: LogLine) => void;
}

export class RehearsedFunction {
  private environment?: Environment;
  private queue: Promise<unknown> = Promise.resolve();
  coldStarts = 0;

  constructor(
    readonly spec: FunctionSpec,
    private readonly options: LambdaHostOptions,
  ) {}

  /** Invokes the function with `event` (synchronously, RequestResponse), one invocation after another. */
  invoke(event: unknown): Promise<InvokeResult> {
    const run = this.queue.then(() => this.invokeNow(event));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private start(): Environment | LambdaError {
    const target = handlerFile(this.spec.codeDirectory, this.spec.handler);
    if ('errorType' in target) return target;
    const { spec } = this;
    const env: Record<string, string> = {
      ...spec.environment,
      ...this.options.platformVariables,
      _HANDLER: spec.handler,
      AWS_EXECUTION_ENV: `AWS_Lambda_${spec.runtime}`,
      AWS_LAMBDA_FUNCTION_NAME: spec.name,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(spec.memoryMb),
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
      AWS_LAMBDA_LOG_GROUP_NAME: spec.logGroupName,
      AWS_LAMBDA_LOG_STREAM_NAME: `rehearsal/[$LATEST]${randomUUID().replace(/-/g, '')}`,
      LAMBDA_TASK_ROOT: spec.codeDirectory,
      TZ: ':UTC',
      LANG: 'en_US.UTF-8',
      PATH: '/usr/local/bin:/usr/bin:/bin',
    };
    const worker = new Worker(new URL('./lambda-environment.mjs', import.meta.url), {
      env,
      name: `lambda-${spec.name}`,
      workerData: {
        file: target.file,
        exportName: target.exportName,
        internet: this.options.internet ?? { hosts: [], ca: [] },
        context: {
          functionName: spec.name,
          functionVersion: '$LATEST',
          invokedFunctionArn: `arn:aws:lambda:${env.AWS_REGION}:${REHEARSAL_ACCOUNT}:function:${spec.name}`,
          memoryLimitInMB: String(spec.memoryMb),
          logGroupName: env.AWS_LAMBDA_LOG_GROUP_NAME,
          logStreamName: env.AWS_LAMBDA_LOG_STREAM_NAME,
        },
      },
      // Roughly the function's memory: a bundle that needs more than it was given fails here too.
      resourceLimits: { maxOldGenerationSizeMb: Math.max(64, spec.memoryMb) },
      stdout: true,
      stderr: true,
    });
    for (const stream of ['stdout', 'stderr'] as const) {
      let rest = '';
      worker[stream].setEncoding('utf8');
      worker[stream].on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) this.options.onLog?.({ function: spec.name, stream, line });
      });
    }
    const pending = new Map<string, (result: InvokeResult) => void>();
    const ready = new Promise<LambdaError | undefined>((resolve) => {
      worker.on('message', (message: { kind: 'init'; ok: boolean; error?: LambdaError } | { kind: 'result'; id: string; ok: boolean; result?: unknown; error?: LambdaError }) => {
        if (message.kind === 'init') return resolve(message.ok ? undefined : message.error);
        const settle = pending.get(message.id);
        pending.delete(message.id);
        settle?.(message.ok ? { ok: true, result: message.result } : { ok: false, error: message.error! });
      });
      const died = (error: LambdaError): void => {
        resolve(error);
        for (const settle of pending.values()) settle({ ok: false, error });
        pending.clear();
        if (this.environment?.worker === worker) this.environment = undefined;
      };
      worker.on('error', (error) => died({ errorType: 'Runtime.ExitError', errorMessage: `the execution environment failed: ${error.message}`, trace: String(error.stack ?? '').split('\n') }));
      worker.on('exit', (code) => died({ errorType: 'Runtime.ExitError', errorMessage: `the execution environment exited (code ${code})` }));
    });
    this.coldStarts++;
    return { worker, ready, pending };
  }

  private async invokeNow(event: unknown): Promise<InvokeResult> {
    if (!this.environment) {
      const started = this.start();
      if ('errorType' in started) return { ok: false, error: started };
      this.environment = started;
    }
    const environment = this.environment;
    const initError = await environment.ready;
    if (initError) {
      await this.stop();
      return { ok: false, error: initError };
    }
    const id = randomUUID();
    const timeoutMs = this.spec.timeoutSeconds * 1000;
    return new Promise<InvokeResult>((resolve) => {
      // Lambda ends an invocation at its timeout and throws the environment away.
      const timer = setTimeout(() => {
        environment.pending.delete(id);
        resolve({ ok: false, error: { errorType: 'Sandbox.Timedout', errorMessage: `Task timed out after ${this.spec.timeoutSeconds.toFixed(2)} seconds` } });
        void this.stop();
      }, timeoutMs);
      environment.pending.set(id, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      environment.worker.postMessage({ id, event, deadline: Date.now() + timeoutMs });
    });
  }

  /** Ends the execution environment; the next invocation starts a new one. */
  async stop(): Promise<void> {
    const environment = this.environment;
    this.environment = undefined;
    if (environment) await environment.worker.terminate();
  }
}
