// The stack synthesized as `cdk deploy` synthesizes it (bundling included: lib/bundling.ts builds
// every function into the cloud assembly; here all at once before the synth, whose local bundling
// then copies each bundle, so each asset is the one `cdk synth` makes), and what the rehearsal
// reads of the assembly: the template and, through the assets manifest `cdk deploy` publishes
// from, the directory of each function's code.
import { readFileSync, rmSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { functions as manifest } from '../functions/manifest';
import { AppStack, type AppStackProps } from '../lib/app-stack';
import { PREBUILT_BUNDLES_CONTEXT, prebuildBundles } from '../lib/bundling';
import type { CfnTemplate } from './template';

export interface Assembly {
  stackName: string;
  /** The cloud assembly's directory (cdk.out). */
  directory: string;
  template: CfnTemplate;
  /** The S3 object key `cdk deploy` uploads each file asset to → the asset's directory or file in the assembly. */
  assetPaths: ReadonlyMap<string, string>;
}

export interface SynthOptions {
  /** Where the cloud assembly goes; the caller owns (and removes) it. */
  outdir: string;
  stage?: string;
  /** The stack's props beside the stage (e.g. `inbound`, or a subset of `functions` for a quicker rehearsal). */
  props?: Omit<AppStackProps, 'stage'>;
  /** CDK context, as `-c key=value` gives it (e.g. `alarmEmail`). */
  context?: Record<string, unknown>;
}

interface AssetManifest {
  files?: Record<string, { source: { path: string; packaging?: string }; destinations: Record<string, { objectKey: string }> }>;
}

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Synthesizes the stack in this process, bundling included, and reads the assembly. The stack's
 * functions are bundled first, side by side, in the assembly's directory as CDK would bundle them
 * (CDK builds them one at a time, each in a child process: minutes for the whole stack); the
 * synth copies each bundle into its asset, and the prebuilt copies are removed.
 */
export async function synthesize(options: SynthOptions): Promise<Assembly> {
  const stage = options.stage ?? 'rehearsal';
  const prebuilt = await prebuildBundles(options.props?.functions ?? manifest, PROJECT_ROOT, options.outdir);
  try {
    // CDK's built-in CloudFormation validation lints the template (its findings only warn, unless
    // strict) and changes nothing of the assembly; it took a third of the synth. `cdk synth` runs it.
    const app = new App({ outdir: options.outdir, context: { ...options.context, [PREBUILT_BUNDLES_CONTEXT]: options.outdir }, builtinCloudFormationValidation: false });
    const stack = new AppStack(app, `Postbox-${stage}`, { stage, ...options.props });
    const cloudAssembly = app.synth();
    const artifact = cloudAssembly.getStackByName(stack.stackName);
    return readAssembly(cloudAssembly.directory, artifact.stackName, artifact.templateFile);
  } finally {
    for (const directory of prebuilt) rmSync(directory, { recursive: true, force: true });
  }
}

/** The template alone, synthesized without bundling (the preview reads no code): quick. */
export function synthesizeTemplate(options: SynthOptions): { stackName: string; template: CfnTemplate } {
  const stage = options.stage ?? 'rehearsal';
  const app = new App({ outdir: options.outdir, context: { ...options.context, 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
  const stack = new AppStack(app, `Postbox-${stage}`, { stage, ...options.props });
  const artifact = app.synth().getStackByName(stack.stackName);
  return { stackName: artifact.stackName, template: artifact.template as CfnTemplate };
}

/** Reads an assembly already on disk (e.g. what `npm run synth` left in cdk.out). */
export function readAssembly(directory: string, stackName: string, templateFile = `${stackName}.template.json`): Assembly {
  const template = JSON.parse(readFileSync(join(directory, templateFile), 'utf8')) as CfnTemplate;
  const manifest = JSON.parse(readFileSync(join(directory, `${stackName}.assets.json`), 'utf8')) as AssetManifest;
  const assetPaths = new Map<string, string>();
  for (const file of Object.values(manifest.files ?? {})) {
    const path = isAbsolute(file.source.path) ? file.source.path : join(directory, file.source.path);
    for (const destination of Object.values(file.destinations)) assetPaths.set(destination.objectKey, path);
  }
  return { stackName, directory, template, assetPaths };
}
