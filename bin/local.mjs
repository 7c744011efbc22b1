// `npm start`: bin/local.ts run as plain JavaScript. It and every HTTP function's module are
// bundled first (local/bundle.mjs), so the process needs no TypeScript loader: tsx's
// would keep a thread of its own and an esbuild process beside the API for as long as it runs
// (tens of MiB). Each function's module is imported only on its first request, as before; the
// functions thread bundles its own code the same way (functions-build.ts). `tsx bin/local.ts`
// still runs the same service from the sources.
import { bundle, projectRootOf } from '../local/bundle.mjs';

const root = projectRootOf(import.meta.url);

// The manifest is data (functions/manifest.ts): bundled alone first, to learn the functions' entries.
const manifest = await bundle(root, 'local-main', { manifest: 'functions/manifest.ts' });
const { functions } = await import(manifest.urls.manifest);
manifest.remove();

const entries = { ' main': 'bin/local.ts' };
for (const fn of functions) entries[fn.name] = fn.entry;
const built = await bundle(root, 'local-main', entries);
process.once('exit', () => built.remove());
const { ' main': main, ...modules } = built.urls;
// Read by loadFunction (local/consumers.ts) in place of the sources.
globalThis.__postboxFunctionModules = modules;
await import(main);
