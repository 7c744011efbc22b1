// How every Lambda bundle is built, as plain data. lib/constructs/manifest-function.ts turns it into
// NodejsFunction `bundling` props and bench/benchmarks/bundles.ts hands the same values to esbuild, so what
// the benchmark measures is what deploys. Data only: no aws-cdk-lib import here.
import type { Needs } from '../shared/platform';

/** ESM bundles have no `require`; CommonJS dependencies that call it need one. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __postboxCreateRequire } from 'node:module'; const require = __postboxCreateRequire(import.meta.url);";

export const lambdaBundling = {
  format: 'esm',
  platform: 'node',
  /** esbuild target of the functions' runtime (Runtime.NODEJS_24_X in manifest-function.ts): keep the two together. */
  target: 'node24',
  minify: true,
  /** A linked `index.mjs.map`; the functions run with NODE_OPTIONS=--enable-source-maps. */
  sourceMap: true,
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  /**
   * The pinned SDK clients go into the bundle instead of resolving from the Lambda runtime: the
   * tested versions run in AWS, and the self-contained bundle imported faster (bench/results.md).
   */
  bundleAwsSdk: true,
  /** Packages left out of the bundle for the runtime to provide. */
  externalModules: [],
} as const satisfies {
  format: 'esm' | 'cjs';
  platform: 'node';
  target: string;
  minify: boolean;
  sourceMap: boolean;
  mainFields: readonly string[];
  banner: string;
  bundleAwsSdk: boolean;
  externalModules: readonly string[];
};

/**
 * Build-time flags that shared/runtime/container.ts reads: an adapter whose flag is false is dead
 * code in that function's bundle, so esbuild leaves it and its SDK client out.
 */
export function adapterFlags(needs: Needs): Record<string, string> {
  const flag = (on: boolean): string => (on ? 'true' : 'false');
  return {
    POSTBOX_WITH_SQS: flag((needs.sendTo?.length ?? 0) > 0),
    POSTBOX_WITH_SES: flag(Boolean(needs.sesSend || needs.sesIdentities)),
    POSTBOX_WITH_SCHEDULER: flag(Boolean(needs.scheduler)),
    POSTBOX_WITH_S3: flag(needs.bucket !== undefined),
    POSTBOX_WITH_SECRETS_MANAGER: flag((needs.secrets?.length ?? 0) > 0),
  };
}
