// docs/openapi.json: committed, current, complete and valid. It is built from the route table and
// the route contracts (bin/openapi.ts); this fails when a route, a schema or a contract changed and
// the file was not written again, when a route has no operation, when the document is not valid
// OpenAPI 3.1, or when an example or an error code could not be what the service answers.
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import openapiTS, { astToString } from 'openapi-typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { documentPath, renderDocument } from '../../bin/openapi';
import { contracts } from '../../functions/contracts';
import { functions } from '../../functions/manifest';
import { errorStatus } from '../../shared/errors';
import { credentialNames, deref, documentedCodes, examplesOf, fixtureNames, fixturesIn, operationsOf, pathParams, schemaValidator, type Json } from '../support/openapi';

let fresh: string;
let doc: Json;

beforeAll(() => {
  // Throws while a route has no contract (buildDocument names it).
  fresh = renderDocument();
  doc = JSON.parse(fresh) as Json;
});

describe('docs/openapi.json', () => {
  it('is what npm run openapi writes now', () => {
    const committed = readFileSync(documentPath, 'utf8');

    expect(committed === fresh ? 'current' : 'the committed file is stale: run npm run openapi').toBe('current');
  });

  it("is what the typed client's types were generated from (client/src/schema.d.ts)", async () => {
    const fresh = astToString(await openapiTS(new URL(`file://${documentPath}`)));
    const committed = readFileSync(new URL('../../client/src/schema.d.ts', import.meta.url), 'utf8');
    expect(committed.endsWith(fresh) ? 'current' : 'the client types are stale: run npm run client:types').toBe('current');
  });

  it('has an operation for every route of the manifest, with its method', () => {
    const routes = functions.flatMap((fn) => (fn.http ?? []).map((r) => `${r.method} ${r.path}`));
    const operations = operationsOf(doc).map((o) => o.key);

    expect(routes.filter((r) => !operations.includes(r))).toEqual([]);
    expect(operations.filter((o) => !routes.includes(o))).toEqual([]);
  });

  it("carries the interface's version, 1.0.0 as the spec's Versioning section says (not the package's version)", () => {
    const committed = JSON.parse(readFileSync(documentPath, 'utf8')) as { info: { version: string } };

    expect(committed.info.version).toBe('1.0.0');
  });

  it('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(doc as never);

    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });
});

describe('schemas', () => {
  it('each compiles as JSON Schema 2020-12 (what the contract test checks answers with)', () => {
    const compile = schemaValidator(doc);
    const broken: string[] = [];
    const tryCompile = (where: string, schema: Json | undefined): void => {
      if (!schema) return;
      try {
        compile(deref(doc, schema));
      } catch (error) {
        broken.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
    for (const o of operationsOf(doc)) {
      for (const p of (o.op.parameters ?? []) as Json[]) tryCompile(`${o.key} parameter ${String(deref(doc, p).name)}`, deref(doc, p).schema);
      for (const [type, media] of Object.entries((o.op.requestBody ? deref(doc, o.op.requestBody).content : {}) as Record<string, Json>)) tryCompile(`${o.key} body ${type}`, media.schema);
      for (const [status, r] of Object.entries(o.op.responses as Json)) {
        const response = deref(doc, r as Json);
        for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Json>)) tryCompile(`${o.key} ${status} ${type}`, media.schema);
        for (const [name, h] of Object.entries((response.headers ?? {}) as Record<string, Json>)) tryCompile(`${o.key} ${status} header ${name}`, deref(doc, h).schema);
      }
    }

    expect(broken).toEqual([]);
  });
});

describe('examples', () => {
  it('every operation has at least one', () => {
    const without = operationsOf(doc).filter((o) => examplesOf(o.op).length === 0).map((o) => o.key);

    expect(without).toEqual([]);
  });

  it("each is answered with one of its operation's documented statuses", () => {
    const undocumented = operationsOf(doc).flatMap((o) =>
      examplesOf(o.op)
        .filter((e) => !Object.keys(o.op.responses ?? {}).includes(String(e.status)))
        .map((e) => `${o.key} "${e.name}": ${e.status}`),
    );

    expect(undocumented).toEqual([]);
  });

  it('each names only fixtures the contract test makes, and credentials it has', () => {
    const known: readonly string[] = fixtureNames;
    const unknown = operationsOf(doc).flatMap((o) =>
      examplesOf(o.op).flatMap((e) => [
        ...fixturesIn([e.params, e.query, e.body])
          .filter((f) => !known.includes(f))
          .map((f) => `${o.key} "${e.name}": {{${f}}}`),
        ...(e.as === undefined || (credentialNames as readonly string[]).includes(e.as) ? [] : [`${o.key} "${e.name}": as ${e.as}`]),
      ]),
    );

    expect(unknown).toEqual([]);
  });

  it('each gives every path parameter, and only those', () => {
    const wrong = operationsOf(doc).flatMap((o) =>
      examplesOf(o.op)
        .filter((e) => JSON.stringify(Object.keys(e.params ?? {}).sort()) !== JSON.stringify(pathParams(o.path).sort()))
        .map((e) => `${o.key} "${e.name}": ${JSON.stringify(e.params ?? {})}`),
    );

    expect(wrong).toEqual([]);
  });

  it('have unique names within their operation', () => {
    const repeated = operationsOf(doc).flatMap((o) => {
      const names = examplesOf(o.op).map((e) => e.name);
      return names.filter((n, i) => names.indexOf(n) !== i).map((n) => `${o.key} "${n}"`);
    });

    expect(repeated).toEqual([]);
  });
});

describe('error responses', () => {
  it('list only codes of shared/errors.ts, each with the status it is answered under', () => {
    // Where the spec answers a code with another status (invalid_request as 422), the route's contract says so.
    const declared = new Set(
      Object.entries(contracts).flatMap(([key, contract]) => contract.errors.flatMap((e) => (typeof e === 'string' ? [] : [`${key} ${e.status} ${e.code}`]))),
    );
    const wrong: string[] = [];
    for (const o of operationsOf(doc)) {
      for (const [status, response] of Object.entries(o.op.responses as Json)) {
        if (Number(status) < 400) continue;
        const { codes, status: envelopeStatus } = documentedCodes(doc, response as Json);
        if (codes.length === 0) wrong.push(`${o.key} ${status}: no error codes`);
        if (envelopeStatus !== undefined && envelopeStatus !== Number(status)) wrong.push(`${o.key} ${status}: envelope status ${String(envelopeStatus)}`);
        for (const code of codes) {
          const expected = (errorStatus as Record<string, number>)[code];
          if (expected === undefined) wrong.push(`${o.key} ${status}: ${code} is not in shared/errors.ts`);
          else if (expected !== Number(status) && !declared.has(`${o.key} ${status} ${code}`)) wrong.push(`${o.key} ${status}: ${code} is answered with ${expected}`);
        }
      }
    }

    expect(wrong).toEqual([]);
  });

  it('are described in the error envelope', () => {
    const bare = operationsOf(doc).flatMap((o) =>
      Object.entries(o.op.responses as Json)
        .filter(([status, r]) => Number(status) >= 400 && !deref(doc, r as Json).content?.['application/json']?.schema)
        .map(([status]) => `${o.key} ${status}`),
    );

    expect(bare).toEqual([]);
  });
});
