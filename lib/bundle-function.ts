// `tsx lib/bundle-function.ts <{ entry, needs } as JSON> <outdir>`: bundles one function. The
// stack's local bundling runs it in a child process (lib/constructs/manifest-function.ts).
import { fileURLToPath } from 'node:url';
import { bundleFunction, type BundledFunction } from './bundling';

const [def, outdir] = process.argv.slice(2);
if (!def || !outdir) throw new Error('usage: tsx lib/bundle-function.ts <{ entry, needs } as JSON> <outdir>');
await bundleFunction(JSON.parse(def) as BundledFunction, fileURLToPath(new URL('..', import.meta.url)), outdir);
