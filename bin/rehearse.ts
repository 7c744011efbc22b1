// `npm run rehearse`: synthesizes the stack as `cdk deploy` would (bundles included) and runs it
// offline as deployed (rehearsal/rehearsal.ts), serving the HTTP API until interrupted.
//
//   npm run rehearse                         the whole stack
//   npm run rehearse -- --port 3100          the API on a given port
//   npm run rehearse -- --only auth,keys     a stack of some functions only (quicker to bundle)
//   npm run rehearse -- --assembly cdk.out   an assembly already synthesized (`npm run synth`)
//   npm run rehearse -- --inbound            the stack as synthesized with `-c inbound=true`
//   npm run rehearse -- --preview            what a deploy would create: resources by type, IAM statements per function
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { functions as manifest } from '../functions/manifest';
import { readAssembly, synthesize, synthesizeTemplate, type Assembly } from '../rehearsal/assembly';
import { formatPreview, preview } from '../rehearsal/preview';
import { RehearsalError, startRehearsal } from '../rehearsal/rehearsal';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    only: { type: 'string' },
    assembly: { type: 'string' },
    stack: { type: 'string', default: 'Postbox-rehearsal' },
    inbound: { type: 'boolean', default: false },
    preview: { type: 'boolean', default: false },
  },
});

if (values.preview) {
  // The template only (no bundles, nothing run): what `cdk deploy` would create.
  const previewDir = mkdtempSync(join(tmpdir(), 'postbox-preview-'));
  try {
    const { stackName, template } = values.assembly ? readAssembly(values.assembly, values.stack) : synthesizeTemplate({ outdir: previewDir, props: { inbound: values.inbound } });
    console.log(formatPreview(preview(template), stackName));
  } finally {
    rmSync(previewDir, { recursive: true, force: true });
  }
  process.exit(0);
}

let outdir: string | undefined;
let assembly: Assembly;
if (values.assembly) {
  assembly = readAssembly(values.assembly, values.stack);
} else {
  outdir = mkdtempSync(join(tmpdir(), 'postbox-rehearsal-'));
  const only = values.only?.split(',').map((name) => name.trim());
  const functions = only ? manifest.filter((def) => only.includes(def.name) || def.defaultRoute) : undefined;
  if (only && functions!.length !== new Set([...only, ...manifest.filter((d) => d.defaultRoute).map((d) => d.name)]).size) {
    throw new Error(`--only names functions the manifest does not have: ${only.filter((name) => !manifest.some((def) => def.name === name)).join(', ')}`);
  }
  console.log(`synthesizing ${functions ? `${functions.length} functions` : 'the stack'} with its bundles into ${outdir} …`);
  assembly = await synthesize({ outdir, props: { inbound: values.inbound, ...(functions ? { functions } : {}) } });
}

try {
  const rehearsal = await startRehearsal({
    assembly,
    port: Number(values.port),
    onLog: (line) => console.log(`[${line.function}] ${line.line}`),
    onDenied: (call) => console.log(`DENIED ${call.service} ${call.operation}: ${call.denied}`),
  });
  console.log(`\n${assembly.stackName} rehearsed: ${rehearsal.functions.size} functions, ${rehearsal.routes.length} routes, ${rehearsal.secrets.length} secrets`);
  console.log(`HTTP API: ${rehearsal.url}`);
  console.log(`SES mail: ${rehearsal.ses.endpoint}`);
  console.log(`Scheduler: ${rehearsal.scheduler.endpoint} (due at() schedules fire on the wall clock)`);
  console.log(`S3: ${rehearsal.s3.endpoint} (s3rver behind the IAM check; download links point here)`);
  for (const note of rehearsal.notes) console.log(`note: ${note}`);
  const unrehearsed = Object.entries(rehearsal.unrehearsed);
  if (unrehearsed.length) console.log(`not rehearsed: ${unrehearsed.map(([type, ids]) => `${type} (${ids.length})`).join(', ')}`);
  const stop = async (): Promise<void> => {
    await rehearsal.close();
    if (outdir) rmSync(outdir, { recursive: true, force: true });
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
} catch (error) {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
  if (error instanceof RehearsalError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
