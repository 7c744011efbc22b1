// `npm run openapi`: writes docs/openapi.json from the route table and the contracts. Run it after
// changing a route, a schema or a contract; test/unit/openapi.test.ts fails while the file is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { contracts } from '../functions/contracts';
import { functions } from '../functions/manifest';
import { buildDocument } from '../functions/openapi/document';

export function renderDocument(): string {
  return `${JSON.stringify(buildDocument(functions, contracts), null, 2)}\n`;
}

export const documentPath = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(documentPath, renderDocument());
  process.stdout.write(`wrote ${documentPath}\n`);
}
