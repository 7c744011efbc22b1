// `npm run web:build`: bundles each browser app of web/ and writes its generated module
// (lib/web-bundles.ts), which the page's function inlines.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWebApp, generatedModule, webApps } from '../lib/web-bundles';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const [name, app] of Object.entries(webApps)) {
  const script = await bundleWebApp(app, root);
  const target = join(root, app.generated);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, generatedModule(app, script));
  console.log(`${name}: ${app.generated} (${Buffer.byteLength(script)} bytes of script)`);
}
