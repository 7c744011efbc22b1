// How every Lambda bundle is built. The stack runs bundleFunction through lib/bundle-function.ts
// (CDK's local bundling is synchronous and esbuild plugins are not, so it runs in a child process)
// and bench/benchmarks/bundles.ts calls it directly: what the benchmark measures is what deploys.
// No aws-cdk-lib import here.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import type { FunctionDef, Needs } from '../shared/platform';

/** ESM bundles have no `require`; CommonJS dependencies that call it need one. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __postboxCreateRequire } from 'node:module'; const require = __postboxCreateRequire(import.meta.url);";

/** The file each bundle is written to, beside its linked `index.mjs.map`; the handler is `index.<export>`. */
export const BUNDLE_FILE = 'index.mjs';

export const lambdaBundling = {
  format: 'esm',
  platform: 'node',
  /** esbuild target of the functions' runtime (Runtime.NODEJS_24_X in manifest-function.ts): keep the two together. */
  target: 'node24',
  minify: true,
  /**
   * A linked `index.mjs.map` beside the bundle, without the sources' text (a third of the size;
   * stack traces need only the mappings). The logger maps the stack of an error it logs through
   * it, reading it then (shared/adapters/stack-trace.ts). Node's --enable-source-maps stays off: it
   * reads and parses the whole map as the bundle loads, 10–20 ms of every cold start here
   * (bench/results.md).
   */
  sourcemap: 'linked',
  sourcesContent: false,
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  /**
   * Nothing is left for the runtime to provide: the pinned SDK clients go into the bundle, so the
   * tested versions run in AWS, and one file imports faster than the runtime's SDK loaded file by
   * file (75–100 ms against 110–190 ms with @aws-sdk/* external, in bench/results.md as of da779df).
   */
  external: [],
  /**
   * Packages replaced in every bundle, by paths relative to the project root. The SDK's default
   * credential chain brings SSO, INI files, login, process, web identity, container and instance
   * metadata providers, with the STS, SSO and sign-in clients they use: about a quarter of every
   * bundle. In Lambda only its first link, the environment, ever answers; that link is all the
   * stand-in does (shared/adapters/aws/lambda-credentials.ts). Unbundled (npm start, tests) the
   * SDK's own chain runs.
   *
   * cheerio (juice's parser, shared/sending/templates/text.ts) becomes its htmlparser2-only build: juice
   * always passes `xml` options, with which cheerio parses with htmlparser2 and never with parse5,
   * so its parse5, undici and encoding-sniffing code (~700 KB gzip in the send worker) never ran.
   */
  alias: { '@aws-sdk/credential-provider-node': './shared/adapters/aws/lambda-credentials.ts', cheerio: 'cheerio/slim' },
} as const;

/**
 * Build-time flags that shared/runtime/container.ts reads: an adapter whose flag is false is dead
 * code in that function's bundle, so esbuild leaves it and its SDK client out.
 */
export function adapterFlags(needs: Needs): Record<string, string> {
  const flag = (on: boolean): string => (on ? 'true' : 'false');
  return {
    POSTBOX_WITH_SQS: flag((needs.sendTo?.length ?? 0) > 0),
    // Its own flag: the DLQ adapter's SQS commands stay out of every function that only sends, and
    // a function that only redrives (admin) gets no queue port to send jobs of its own with.
    POSTBOX_WITH_DLQ: flag(Boolean(needs.deadLetters)),
    POSTBOX_WITH_SES: flag(Boolean(needs.sesSend || needs.sesIdentities)),
    POSTBOX_WITH_SCHEDULER: flag(Boolean(needs.scheduler)),
    POSTBOX_WITH_S3: flag(needs.bucket !== undefined),
    POSTBOX_WITH_SECRETS_MANAGER: flag((needs.secrets?.length ?? 0) > 0),
    POSTBOX_WITH_STRIPE: flag(Boolean(needs.billing)),
  };
}

// Four generated patterns in the pinned SDK keep code in every bundle that no function runs; the
// plugin below rewrites them as the modules load, changing no value the code reads (the second
// and fourth put a plain error where no bundled client goes) (test/cdk/bundle-sdk.test.ts checks them against
// the real modules, and that no bundled client streams, so an SDK update that changes them is
// noticed).
//
// 1. Every SDK client describes its service in one generated module of schema literals (all its
//    operations, their shapes and errors; S3's is 140 KB). esbuild drops the literals nobody uses
//    only when it can see they are pure, and a computed key such as `{ [_hH]: "x-amz-acl" }` could
//    run code for all it knows, so every schema of the service stayed in any bundle that sent one
//    of its commands. The keys are the module's own string constants (`const _hH = "httpHeader";`);
//    written in as those strings they leave only the schemas reached from the commands used.
// 2. The HTTP protocol of @smithy/core loads its event-stream support with `await import()`, for
//    operations that stream events. None of the clients bundled here has one (no member of their
//    schemas is streaming: test/cdk/bundle-sdk.test.ts), yet inside a bundle a module reached that
//    way is kept whole, with everything it imports: 150 modules of @smithy/core behind lazy-init
//    wrappers. Made static, esbuild trimmed them, but the event-stream codec and its serde still
//    stayed in every bundle (13.6 KiB minified, 4.2 KB of gzip). The import is replaced by a
//    plain error, so none of it is bundled; an operation that did stream events would fail with
//    that error instead of running.
// 3. Each client reads its own package.json for one field, `version` (for its user agent), and a
//    JSON module is bundled whole: dependencies, scripts and all, 2.5 KB a client.
// 4. The S3 client (the one bundled client with an operation that streams events,
//    SelectObjectContent, which nothing here calls) imports the event-stream marshaller statically
//    in its runtime config and makes one as the client is made. The import is replaced by a
//    provider of a marshaller that throws that same plain error, so the codec stays out of the
//    bundles that reach the bucket too (about 4 KB of gzip each).
const SDK_SCHEMA_MODULE = /[\\/]node_modules[\\/]@aws-sdk[\\/]client-[a-z0-9-]+[\\/]dist-es[\\/]schemas[\\/]schemas_\d+\.js$/;
const STRING_CONSTANT = /^const (_\w+) = ("(?:[^"\\\n]|\\.)*");$/gm;
const COMPUTED_KEY = /([{,]\s*)\[(_\w+)\]:/g;

/** The schema module with every computed key that names one of its string constants written as that string. */
export function inlineSchemaKeys(source: string): { source: string; inlined: number } {
  const constants = new Map<string, string>();
  for (const [, name, literal] of source.matchAll(STRING_CONSTANT)) constants.set(name!, literal!);
  let inlined = 0;
  const out = source.replace(COMPUTED_KEY, (whole, before: string, name: string) => {
    const literal = constants.get(name);
    if (literal === undefined) return whole;
    inlined++;
    return `${before}${literal}:`;
  });
  return { source: out, inlined };
}

const SMITHY_HTTP_PROTOCOL = /[\\/]node_modules[\\/]@smithy[\\/]core[\\/]dist-es[\\/]submodules[\\/]protocols[\\/]HttpProtocol\.js$/;
const EVENT_STREAMS_IMPORT = 'const { EventStreamSerde, eventStreamSerdeProvider } = await import("@smithy/core/event-streams");';
export const NO_EVENT_STREAMS = 'event streams are not in this bundle (lib/bundling.ts): no function here calls an operation that streams events';

/** HttpProtocol.js with its one dynamic import, of event-stream support, replaced by a plain error; unchanged (`rewritten: false`) if the SDK no longer has it. */
export function dropEventStreams(source: string): { source: string; rewritten: boolean } {
  if (!source.includes(EVENT_STREAMS_IMPORT)) return { source, rewritten: false };
  const replacement = `const { EventStreamSerde, eventStreamSerdeProvider } = (() => { throw new Error(${JSON.stringify(NO_EVENT_STREAMS)}); })();`;
  return { source: source.replace(EVENT_STREAMS_IMPORT, replacement), rewritten: true };
}

const SDK_RUNTIME_CONFIG = /[\\/]node_modules[\\/]@aws-sdk[\\/]client-[a-z0-9-]+[\\/]dist-es[\\/]runtimeConfig\.js$/;
const EVENT_STREAM_PROVIDER_IMPORT = 'import { eventStreamSerdeProvider } from "@smithy/core/event-streams";';

/** A client's runtimeConfig.js with its event-stream marshaller a stand-in that throws when used; unchanged (`rewritten: false`) if it has no such import. */
export function dropEventStreamMarshaller(source: string): { source: string; rewritten: boolean } {
  if (!source.includes(EVENT_STREAM_PROVIDER_IMPORT)) return { source, rewritten: false };
  const fail = `() => { throw new Error(${JSON.stringify(NO_EVENT_STREAMS)}); }`;
  const replacement = `const eventStreamSerdeProvider = () => ({ serialize: ${fail}, deserialize: ${fail} });`;
  return { source: source.replace(EVENT_STREAM_PROVIDER_IMPORT, replacement), rewritten: true };
}

const SDK_CLIENT_PACKAGE_JSON = /[\\/]node_modules[\\/]@aws-sdk[\\/]client-[a-z0-9-]+[\\/]package\.json$/;

/** A client's package.json cut down to the field its code reads. */
export function clientPackageVersion(packageJson: string): string {
  return JSON.stringify({ version: (JSON.parse(packageJson) as { version: string }).version });
}

export const sdkTreeShaking: Plugin = {
  name: 'postbox-sdk-tree-shaking',
  setup(esbuild) {
    esbuild.onLoad({ filter: SDK_SCHEMA_MODULE }, async ({ path }) => ({ contents: inlineSchemaKeys(await readFile(path, 'utf8')).source, loader: 'js' }));
    esbuild.onLoad({ filter: SMITHY_HTTP_PROTOCOL }, async ({ path }) => ({ contents: dropEventStreams(await readFile(path, 'utf8')).source, loader: 'js' }));
    esbuild.onLoad({ filter: SDK_RUNTIME_CONFIG }, async ({ path }) => ({ contents: dropEventStreamMarshaller(await readFile(path, 'utf8')).source, loader: 'js' }));
    esbuild.onLoad({ filter: SDK_CLIENT_PACKAGE_JSON }, async ({ path }) => ({ contents: clientPackageVersion(await readFile(path, 'utf8')), loader: 'json' }));
  },
};

/**
 * Stripe's library runs code as it loads, so esbuild keeps it in any bundle that imports it, used
 * or not. Declared free of side effects, it stays only where the composition root's Stripe branch
 * survives (POSTBOX_WITH_STRIPE, the `billing` need): the billing function's bundle.
 */
export const stripeOnlyWhereUsed: Plugin = {
  name: 'postbox-stripe-only-where-used',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^stripe$/ }, async (args) => {
      if ((args.pluginData as { resolving?: boolean } | undefined)?.resolving) return undefined;
      const resolved = await esbuild.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { resolving: true } });
      return resolved.errors.length ? undefined : { path: resolved.path, sideEffects: false };
    });
  },
};

/** What of a function decides its bundle. */
export type BundledFunction = Pick<FunctionDef, 'entry' | 'needs'>;

/** The esbuild options of one function's bundle, written to `outdir/index.mjs`. */
export function esbuildOptions(def: BundledFunction, projectRoot: string, outdir: string): BuildOptions {
  const { banner, ...settings } = lambdaBundling;
  return {
    ...settings,
    mainFields: [...settings.mainFields],
    external: [...settings.external],
    alias: { ...settings.alias },
    banner: { js: banner },
    entryPoints: [join(projectRoot, def.entry)],
    outfile: join(outdir, BUNDLE_FILE),
    absWorkingDir: projectRoot,
    bundle: true,
    define: adapterFlags(def.needs),
    plugins: [sdkTreeShaking, stripeOnlyWhereUsed],
    metafile: true,
    logLevel: 'warning',
  };
}

/** Bundles one manifest function into `outdir` (index.mjs and index.mjs.map). */
export async function bundleFunction(def: BundledFunction, projectRoot: string, outdir: string, overrides: BuildOptions = {}): Promise<Metafile> {
  const result = await build({ ...esbuildOptions(def, projectRoot, outdir), ...overrides });
  return result.metafile!;
}

/**
 * The CDK context key naming a directory of bundles built beforehand by prebuildBundles. With it
 * the stack's local bundling copies a function's prebuilt bundle into the assembly instead of
 * building it in a child process (lib/constructs/manifest-function.ts); the assembly is the same,
 * each asset still hashed by its content. Only the rehearsal sets it: CDK runs local bundling one
 * asset at a time, each in its own process, and that was most of a rehearsal's start.
 *
 * The directory must be the assembly's own (its outdir): the source map names the sources by
 * paths relative to the bundle, so a bundle built anywhere else than one level below the outdir,
 * where CDK builds it, is another asset (test/rehearsal/assembly.test.ts compares the two).
 */
export const PREBUILT_BUNDLES_CONTEXT = 'postbox:prebuiltBundles';

/** The directory, in the prebuilt bundles' one, of a function's bundle: named by what decides the bundle. */
export function prebuiltBundleName(def: BundledFunction): string {
  return `prebuilt-bundle-${createHash('sha256').update(JSON.stringify({ entry: def.entry, needs: def.needs })).digest('hex').slice(0, 32)}`;
}

/**
 * Bundles the functions with bundleFunction, all at once in this process (esbuild runs the builds
 * side by side), each into `dir/<prebuiltBundleName>`; answers those directories.
 */
export async function prebuildBundles(defs: readonly BundledFunction[], projectRoot: string, dir: string): Promise<string[]> {
  const byDirectory = new Map(defs.map((def) => [join(dir, prebuiltBundleName(def)), def]));
  await Promise.all([...byDirectory].map(([outdir, def]) => bundleFunction(def, projectRoot, outdir)));
  return [...byDirectory.keys()];
}
