// The folder rules of docs/architecture.md, checked on the real import graph: arrows point one
// way (entry points → functions → shared; nothing in shared reaches up), there are no import
// cycles, and domain code touches the outside world only through ports.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cyclesOf, importGraph, type ImportEdge } from '../support/imports';

const root = fileURLToPath(new URL('../../', import.meta.url));
const graph = importGraph(root, ['shared', 'functions', 'local', 'lib', 'bin', 'rehearsal', 'web', 'client']);

/** Folders of shared/ that are not domain areas: the plumbing around them. */
const PLUMBING = ['shared/http/', 'shared/runtime/', 'shared/adapters/', 'shared/ports/', 'shared/db/', 'shared/crypto/', 'shared/pagination/', 'shared/formats/'];
/** The product's parts in the order of docs/architecture.md's folder map: each imports only parts before it. */
const PARTS = ['shared/accounts', 'shared/webhooks', 'shared/domains', 'shared/billing', 'shared/sending', 'shared/audiences', 'shared/engagement', 'shared/inbound-mail', 'shared/auth', 'shared/operations'];
/** The shared vocabulary every layer reads. */
const LOOSE = ['shared/concurrency.ts', 'shared/errors.ts', 'shared/platform.ts'];
/** Edges between folders (a file's folder to its import's), inside shared/. */
const folderGraph = (edges: readonly ImportEdge[]): ImportEdge[] => {
  const folder = (f: string): string => f.split('/').slice(0, -1).join('/');
  const seen = new Map<string, ImportEdge>();
  for (const e of edges) {
    const from = folder(e.from);
    const to = folder(e.to);
    if (from === to || !from.startsWith('shared/') || !to.startsWith('shared/')) continue;
    seen.set(`${from} ${to}`, { from, to, typeOnly: false });
  }
  return [...seen.values()];
};
const isDomain = (file: string): boolean => file.startsWith('shared/') && file.split('/').length > 2 && !PLUMBING.some((p) => file.startsWith(p));
/** The manifest's data: the list, the access rules and each area's definitions (never handler code). */
const isManifestData = (file: string): boolean => file === 'functions/manifest.ts' || file === 'functions/access.ts' || /^functions\/[^/]+\/definition\.ts$/.test(file);
const describeEdges = (edges: readonly ImportEdge[]): string[] => edges.map((e) => `${e.from} → ${e.to}${e.typeOnly ? ' (type)' : ''}`);

describe('the import graph', () => {
  it('reads the whole production tree', () => {
    // A graph this small would mean the reader lost its way, and every rule below would pass.
    expect(graph.length).toBeGreaterThan(300);
    expect(graph.some((e) => e.from === 'functions/send/http.ts' && e.to === 'functions/manifest.ts')).toBe(true);
  });

  it('never points upward: shared/ imports nothing from functions/, local/, lib/ or bin/; functions/ nothing from local/, lib/ or bin/', () => {
    const upward = graph.filter(
      (e) =>
        (e.from.startsWith('shared/') && /^(functions|local|lib|bin)\//.test(e.to)) ||
        (e.from.startsWith('functions/') && /^(local|lib|bin)\//.test(e.to)) ||
        (e.from.startsWith('local/') && /^(lib|bin|rehearsal)\//.test(e.to)) ||
        (e.from.startsWith('lib/') && e.to.startsWith('bin/')),
    );
    expect(describeEdges(upward)).toEqual([]);
  });

  it('keeps rehearsal/ beside the product: only bin/ imports it, and it imports the stack, the manifest and the local emulators, never a function\'s code', () => {
    // The rehearsal runs the functions from their bundles in the cloud assembly; importing their
    // code would rehearse something else than what deploys.
    const allowed = (to: string): boolean =>
      /^(rehearsal|lib)\//.test(to) || isManifestData(to) || to === 'shared/platform.ts' || /^shared\/adapters\//.test(to) || to.startsWith('local/');
    const crossing = graph.filter((e) => (e.to.startsWith('rehearsal/') && !/^(rehearsal|bin)\//.test(e.from)) || (e.from.startsWith('rehearsal/') && !allowed(e.to)));
    expect(describeEdges(crossing)).toEqual([]);
    expect(graph.some((e) => e.from === 'bin/rehearse.ts' && e.to === 'rehearsal/rehearsal.ts')).toBe(true);
  });

  it('keeps the browser apps apart: web/ imports only web/ and client/, nothing imports web/ (its pages inline its bundle), and client/ stands alone', () => {
    // web/ runs in a browser: the server's code is not there to import, and the API is reached
    // only through the client, with its one retry policy.
    const crossing = graph.filter(
      (e) =>
        (e.from.startsWith('web/') && !/^(web|client)\//.test(e.to)) ||
        (e.to.startsWith('web/') && !e.from.startsWith('web/')) ||
        (e.from.startsWith('client/') && !e.to.startsWith('client/')),
    );
    expect(describeEdges(crossing)).toEqual([]);
    expect(graph.some((e) => e.from.startsWith('web/mail/') && e.to === 'client/src/index.ts')).toBe(true);
  });

  it('keeps the manifest data only: the list, the access rules and the areas\' definitions import one another and the shared vocabulary, never code', () => {
    const crossing = graph.filter((e) => isManifestData(e.from) && !(isManifestData(e.to) || e.to === 'shared/platform.ts'));
    expect(describeEdges(crossing)).toEqual([]);
    expect(graph.filter((e) => e.from === 'functions/manifest.ts' && /\/definition\.ts$/.test(e.to)).length).toBeGreaterThan(20);
  });

  it('has no import cycles, type imports included', () => {
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('has no cycles between folders either: an area that raises an event is told its listeners by the composition root, never imports them', () => {
    // shared/runtime/listeners.ts wires the timeline to broadcast stats and the receipt to the Mail
    // app and the routes; a folder's own files and its subfolders' count apart.
    expect(cyclesOf(folderGraph(graph))).toEqual([]);
    expect(folderGraph(graph).length).toBeGreaterThan(50);
  });

  it('orders the parts: no two parts of shared/ import each other, however indirectly (the Container type aside: the composition root above them all)', () => {
    const parts = new Map<string, ImportEdge>();
    for (const e of graph) {
      if (e.typeOnly && e.to === 'shared/runtime/container.ts') continue;
      const [from, to] = [e.from, e.to].map((f) => f.split('/').slice(0, 2).join('/'));
      if (from !== to && from!.startsWith('shared/') && to!.startsWith('shared/') && !from!.endsWith('.ts') && !to!.endsWith('.ts')) parts.set(`${from} ${to}`, { from: from!, to: to!, typeOnly: false });
    }
    expect(cyclesOf([...parts.values()])).toEqual([]);
    // And in the folder map's order: a part imports only parts listed before it.
    const later = [...parts.values()].filter((e) => PARTS.includes(e.from) && PARTS.includes(e.to) && PARTS.indexOf(e.to) > PARTS.indexOf(e.from));
    expect(describeEdges(later)).toEqual([]);
  });

  it('groups shared/ into the product\'s parts and the plumbing, and nothing else', () => {
    const top = new Set(graph.flatMap((e) => [e.from, e.to]).filter((f) => f.startsWith('shared/')).map((f) => f.split('/').slice(0, 2).join('/')));
    expect([...top].sort()).toEqual([...PARTS, ...PLUMBING.map((p) => p.slice(0, -1)), ...LOOSE].sort());
  });

  it('keeps HTTP out of domain code: only shared/http and functions/ know requests and responses', () => {
    expect(describeEdges(graph.filter((e) => isDomain(e.from) && e.to.startsWith('shared/http/')))).toEqual([]);
  });

  it('lets domain code reach adapters and the runtime only through ports (the container type aside; the Logger is a port)', () => {
    const portLike = new Set(['shared/runtime/container.ts']);
    const reaching = graph.filter(
      (e) => isDomain(e.from) && (e.to.startsWith('shared/adapters/') || (e.to.startsWith('shared/runtime/') && !(e.typeOnly && portLike.has(e.to)))),
    );
    expect(describeEdges(reaching)).toEqual([]);
  });

  it('keeps ports free of implementations: a port imports only other ports and the shared vocabulary', () => {
    const allowed = (to: string): boolean => to.startsWith('shared/ports/') || to === 'shared/platform.ts' || to === 'shared/errors.ts';
    expect(describeEdges(graph.filter((e) => e.from.startsWith('shared/ports/') && !allowed(e.to)))).toEqual([]);
  });
});

describe('the cycle finder', () => {
  it('finds a cycle and ignores a chain', () => {
    const edge = (from: string, to: string): ImportEdge => ({ from, to, typeOnly: false });
    expect(cyclesOf([edge('a', 'b'), edge('b', 'c'), edge('c', 'a'), edge('c', 'd')])).toEqual([['a', 'b', 'c']]);
    expect(cyclesOf([edge('a', 'b'), edge('b', 'c')])).toEqual([]);
  });
});
