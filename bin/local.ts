// `npm start`: runs the whole service locally. Ctrl-C stops it cleanly; data stays in DATA_DIR.
import { functions } from '../functions/manifest';
import { join, resolve } from 'node:path';
import { ConfigError, readLocalSettings } from '../shared/runtime/config';
import { keepHeapSmall } from '../local/heap';
import { startLocalRuntime } from '../local/runtime';

/** Reads the send's answer on stdin: prints its id, or the error envelope (to stderr) when there is none. */
const ID_FROM_ANSWER = `node -e 'const r = JSON.parse(require("fs").readFileSync(0)); r.id ? console.log(r.id) : console.error(JSON.stringify(r))'`;

// This process's V8 heap, held to a laptop's size (local/heap.ts).
keepHeapSmall();

async function main(): Promise<void> {
  let settings;
  try {
    settings = readLocalSettings();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const runtime = await startLocalRuntime(settings, functions, { consumers: 'thread' });
  const b = runtime.bootstrap;
  const dataDir = resolve(settings.dataDir);
  const store = settings.dynamodbEndpoint ? `${runtime.dynamodbEndpoint} (DYNAMODB_ENDPOINT)` : `${runtime.dynamodbEndpoint} (embedded, kept in ${join(dataDir, 'dynamodb')})`;
  const lines = [
    `Postbox is running at ${runtime.url}`,
    `  web console:                ${runtime.url}/ (sign up there; the verification mail lands in the SES emulator below)`,
    `  sent mail (SES emulator):   ${runtime.sesUrl}/`,
    `  API reference:              ${runtime.url}/docs (the OpenAPI document: ${runtime.url}/v1/openapi.json)`,
    `  inbound mail (SMTP):        ${runtime.smtpUrl ?? 'off (INBOUND_ENABLED=false)'}`,
    ...(runtime.smtpUrl ? [`  Mail app (web page):        ${runtime.url}/mail (your console session, or a key below)`] : []),
    `  store (DynamoDB endpoint):  ${store}`,
    `  data directory:             ${dataDir}`,
    runtime.createdBootstrap ? '  first start: created an account; its keys are shown once here and kept in' : '  keys of the bootstrap account are in',
    `  ${join(dataDir, 'bootstrap.json')}`,
  ];
  if (runtime.createdBootstrap) {
    lines.push(`  account_id:     ${b.account_id}`, `  admin_key:      ${b.admin_key}`, `  test_admin_key: ${b.test_admin_key}`, `  staff_token:    ${b.staff_token}`);
  }
  lines.push(
    '',
    `The account is in sandbox mode: live mail goes to its own address (${settings.accountEmail}) or a verified test recipient.`,
    'Try (the send prints the new message id and keeps it in $ID for the next command):',
    `  KEY=$(node -p "require('${join(dataDir, 'bootstrap.json')}').admin_key")`,
    `  ID=$(curl -s ${runtime.url}/v1/send -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \\`,
    `    -d '{"channel":"email","idempotency_key":"hello-1","destination":{"email":"${settings.accountEmail}"},"payload":{"subject":"Hello","body_text":"It works"}}' \\`,
    `    | ${ID_FROM_ANSWER}); echo "$ID"`,
    `  curl -s ${runtime.url}/v1/messages/$ID -H "Authorization: Bearer $KEY"`,
    `  then open ${runtime.sesUrl}/ to read it.`,
    `Or open ${runtime.url}/ in a browser, sign up, and do the same from the console.`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  process.stdout.write(`READY ${runtime.url}\n`);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: shutting down...\n`);
    runtime.close().then(
      () => {
        process.stdout.write('stopped\n');
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
