// The BIMI upload's building blocks without a container: the SVG Tiny PS profile check, the
// multipart/form-data reader, and the DMARC and BIMI record logic.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isBimiPublished, readDmarc, recommendedDmarc } from '../../shared/domains/bimi/dns-records';
import { boundaryOf, firstFilePart, MalformedMultipartError, parseMultipart } from '../../shared/formats/multipart';
import { BimiFileRejectedError } from '../../shared/domains/bimi/service';
import { svgProfileProblems } from '../../shared/domains/bimi/svg-profile';

const fixture = readFileSync(new URL('../fixtures/bimi/valid-logo.svg', import.meta.url));
const SVG_NS = 'http://www.w3.org/2000/svg';
const BASE_ROOT: Record<string, string> = { xmlns: SVG_NS, version: '1.2', baseProfile: 'tiny-ps', viewBox: '0 0 100 100' };
const BASE_BODY = '<title>Acme</title><rect width="100" height="100" fill="#c40000"/>';

/** A minimal valid logo with the root attributes changed and the content replaced as asked. */
function logo(options: { root?: Record<string, string | undefined>; body?: string; prolog?: string; rootName?: string } = {}): Buffer {
  const attrs = Object.entries({ ...BASE_ROOT, ...options.root })
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([k, v]) => `${k}="${v}"`)
    .join(' ');
  const name = options.rootName ?? 'svg';
  return Buffer.from(`${options.prolog ?? ''}<${name} ${attrs}>${options.body ?? BASE_BODY}</${name}>`);
}

const problems = (svg: Buffer | string) => svgProfileProblems(Buffer.isBuffer(svg) ? svg : Buffer.from(svg));

describe('svgProfileProblems', () => {
  it('accepts the valid fixture: gradient fill, #fragment references, comment, XML declaration, escaped title', () => {
    // Act
    const found = problems(fixture);

    // Assess
    expect(found).toEqual([]);
  });

  it('accepts a DOCTYPE that declares no entities and a namespace-prefixed root', () => {
    const doctype = '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n';
    const prefixed = `<s:svg xmlns:s="${SVG_NS}" version="1.2" baseProfile="tiny-ps" viewBox="0,0,64,64"><s:title>Acme</s:title></s:svg>`;

    expect(problems(logo({ prolog: doctype }))).toEqual([]);
    expect(problems(prefixed)).toEqual([]);
  });

  it.each<[string, Buffer, string]>([
    ['a root that is not <svg>', logo({ rootName: 'html' }), 'the root element is <html>, not <svg>'],
    ['no SVG namespace', logo({ root: { xmlns: undefined } }), `must declare xmlns="${SVG_NS}"`],
    ['no version', logo({ root: { version: undefined } }), 'needs version="1.2"'],
    ['version 1.1', logo({ root: { version: '1.1' } }), 'has version="1.1"; version="1.2" is required'],
    ['no baseProfile', logo({ root: { baseProfile: undefined } }), 'needs baseProfile="tiny-ps"'],
    ['baseProfile tiny', logo({ root: { baseProfile: 'tiny' } }), 'has baseProfile="tiny"; baseProfile="tiny-ps" is required'],
    ['no <title>', logo({ body: '<rect width="100" height="100"/>' }), 'needs a <title> child'],
    ['a <title> that is not a direct child', logo({ body: '<g><title>Acme</title></g>' }), 'needs a <title> child'],
    ['no viewBox', logo({ root: { viewBox: undefined } }), 'has no viewBox'],
    ['a viewBox that is not square', logo({ root: { viewBox: '0 0 200 100' } }), 'the viewBox is not square (width 200, height 100)'],
    ['a viewBox that is not four numbers', logo({ root: { viewBox: '0 0 100' } }), 'is not four numbers'],
    ['x on the root', logo({ root: { x: '10' } }), 'must not have an x attribute'],
    ['y on the root', logo({ root: { y: '10' } }), 'must not have an y attribute'],
    ['a <script>', logo({ body: `${BASE_BODY}<script>alert(1)</script>` }), 'line 1: <script>: scripts are not allowed'],
    ['an onload handler on the root', logo({ root: { onload: 'alert(1)' } }), 'onload on <svg>: event handler attributes are not allowed'],
    ['an onclick handler on a shape', logo({ body: `${BASE_BODY}<circle r="4" onclick="go()"/>` }), 'onclick on <circle>: event handler attributes are not allowed'],
    ['a <foreignObject>', logo({ body: `${BASE_BODY}<foreignObject width="10" height="10"/>` }), '<foreignObject>: foreignObject is not allowed'],
    ['an <image>', logo({ body: `${BASE_BODY}<image width="10" height="10"/>` }), '<image>: embedded images are not allowed'],
    ['<animate>', logo({ body: `${BASE_BODY}<animate attributeName="x" to="5"/>` }), '<animate>: animation is not allowed'],
    ['<animateMotion>', logo({ body: `${BASE_BODY}<animateMotion path="M0 0"/>` }), '<animateMotion>: animation is not allowed'],
    ['<animateTransform>', logo({ body: `${BASE_BODY}<animateTransform type="rotate"/>` }), '<animateTransform>: animation is not allowed'],
    ['<set>', logo({ body: `${BASE_BODY}<set attributeName="fill" to="red"/>` }), '<set>: animation is not allowed'],
    ['an external href', logo({ body: `${BASE_BODY}<use href="https://cdn.example/a.svg#x"/>` }), 'href="https://cdn.example/a.svg#x" on <use>: only references inside the file (#id) are allowed'],
    ['an external xlink:href', logo({ root: { 'xmlns:xlink': 'http://www.w3.org/1999/xlink' }, body: `${BASE_BODY}<a xlink:href="http://evil.test/"/>` }), 'xlink:href="http://evil.test/" on <a>'],
    ['an href hidden behind character references', logo({ body: `${BASE_BODY}<use href="&#104;ttps://x.test/a#b"/>` }), 'href="https://x.test/a#b" on <use>'],
    ['an external url() in a presentation attribute', logo({ body: `${BASE_BODY}<rect width="1" height="1" fill="url(https://x.test/p.svg#g)"/>` }), 'url(https://x.test/p.svg#g) in fill on <rect>: external references are not allowed'],
    ['an @import in <style>', logo({ body: `${BASE_BODY}<style>@import "https://x.test/a.css";</style>` }), '@import in <style>: external references are not allowed'],
    ['an external style sheet instruction', logo({ prolog: '<?xml-stylesheet href="https://x.test/a.css"?>' }), '<?xml-stylesheet?>: external style sheets are not allowed'],
    ['a DOCTYPE declaring entities', logo({ prolog: '<!DOCTYPE svg [<!ENTITY lol "lol">]>' }), 'XML entity declarations are not allowed'],
    ['a DOCTYPE with other declarations', logo({ prolog: '<!DOCTYPE svg [<!ATTLIST svg onload CDATA "alert(1)">]>' }), 'declarations inside a DOCTYPE ([...]) are not allowed'],
    ['a reference to an undeclared entity', logo({ body: `<title>&lol;</title>` }), 'entity reference &lol; is not allowed'],
    ['an element never closed', Buffer.from(logo().toString().replace('</svg>', '<g>')), 'not well-formed XML'],
    ['mismatched tags', logo({ body: `${BASE_BODY}<g></p>` }), 'not well-formed XML (line 1: </p> closes <g>)'],
    ['an unquoted attribute', logo({ body: `${BASE_BODY}<rect width=10/>` }), 'the value of width in <rect> is not quoted'],
    ['a duplicate attribute', logo({ body: `${BASE_BODY}<rect fill="red" fill="blue"/>` }), 'attribute fill appears twice'],
    ['a second root element', Buffer.concat([logo(), Buffer.from('<svg/>')]), 'a second root element'],
    ['bytes that are not UTF-8', Buffer.from([0x3c, 0x73, 0x76, 0x67, 0xff, 0xfe]), 'the file is not UTF-8 text'],
  ])('names %s', (_case, svg, reason) => {
    // Act
    const found = problems(svg);

    // Assess
    expect(found.length).toBeGreaterThan(0);
    expect(found.join('\n')).toContain(reason);
  });

  it('lists every problem of a file that breaks several rules, with line numbers', () => {
    // Prepare
    const svg = [
      '<!DOCTYPE svg [<!ENTITY x "y">]>',
      '<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 200 100" x="0" onload="boot()">',
      '  <script>boot()</script>',
      '  <image href="https://x.test/logo.png" width="10" height="10"/>',
      '  <animate attributeName="opacity" to="0"/>',
      '  <foreignObject/>',
      '</svg>',
    ].join('\n');

    // Act
    const found = problems(svg);
    const message = new BimiFileRejectedError(found).message;

    // Assess
    expect(found).toEqual([
      'line 1: XML entity declarations are not allowed',
      'the root <svg> has version="1.1"; version="1.2" is required',
      'the root <svg> needs baseProfile="tiny-ps"',
      'the viewBox is not square (width 200, height 100)',
      'the root <svg> must not have an x attribute',
      'line 2: onload on <svg>: event handler attributes are not allowed',
      'line 3: <script>: scripts are not allowed',
      'line 4: <image>: embedded images are not allowed (draw the logo as vector shapes)',
      'line 4: href="https://x.test/logo.png" on <image>: only references inside the file (#id) are allowed',
      'line 5: <animate>: animation is not allowed',
      'line 6: <foreignObject>: foreignObject is not allowed',
      'the root <svg> needs a <title> child naming the brand',
    ]);
    expect(message).toBe(`rejected BIMI file: ${found.join('; ')}`);
  });

  it('bounds the message of a file that breaks a rule thousands of times', () => {
    const body = `${BASE_BODY}${'<rect width="1" height="1" onclick="x()"/>\n'.repeat(2000)}`;

    const error = new BimiFileRejectedError(problems(logo({ body })));

    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/; and 1975 more$/);
  });

  it('never expands entities, so an entity bomb costs nothing', () => {
    const bomb = `<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>`;

    const found = problems(logo({ prolog: bomb, body: '<title>&b;&b;&b;</title>' }));

    expect(found).toEqual([
      'line 1: XML entity declarations are not allowed',
      'line 1: entity reference &b; is not allowed (only &lt; &gt; &amp; &quot; &apos; and character references)',
    ]);
  });
});

const CRLF = '\r\n';
const svgBytes = logo();

function form(boundary: string, parts: Array<{ headers: string[]; body: Buffer | string }>, options: { preamble?: string; epilogue?: string } = {}): Buffer {
  const chunks: Buffer[] = [];
  if (options.preamble !== undefined) chunks.push(Buffer.from(`${options.preamble}${CRLF}`));
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}${CRLF}${part.headers.join(CRLF)}${CRLF}${CRLF}`), Buffer.from(part.body), Buffer.from(CRLF));
  }
  chunks.push(Buffer.from(`--${boundary}--${options.epilogue ?? CRLF}`));
  return Buffer.concat(chunks);
}

const filePart = (body: Buffer | string, filename = 'logo.svg', name = 'file') => ({
  headers: [`Content-Disposition: form-data; name="${name}"; filename="${filename}"`, 'Content-Type: image/svg+xml'],
  body,
});

describe('parseMultipart', () => {
  it('reads parts with an unquoted boundary and keeps the file bytes exactly', () => {
    // Prepare: content holding CRLF and a near-boundary line must survive untouched
    const tricky = Buffer.concat([svgBytes, Buffer.from(`${CRLF}--XyZ-not-it${CRLF}`), Buffer.from([0, 255, 13, 10])]);
    const body = form('XyZ', [{ headers: ['Content-Disposition: form-data; name="note"'], body: 'hello' }, filePart(tricky)]);

    // Act
    const parts = parseMultipart('multipart/form-data; boundary=XyZ', body);

    // Assess
    expect(parts.map((p) => [p.name, p.filename, p.contentType])).toEqual([
      ['note', undefined, undefined],
      ['file', 'logo.svg', 'image/svg+xml'],
    ]);
    expect(parts[0]?.body.toString()).toBe('hello');
    expect(parts[1]?.body.equals(tricky)).toBe(true);
  });

  it('takes a quoted boundary with characters a token may not hold', () => {
    const boundary = 'with space:and=colon';
    const body = form(boundary, [filePart(svgBytes)]);

    const parts = parseMultipart(`Multipart/Form-Data; charset=utf-8; boundary="${boundary}"`, body);

    expect(parts).toHaveLength(1);
    expect(parts[0]?.body.equals(svgBytes)).toBe(true);
  });

  it('skips a preamble and an epilogue, and transport padding after a delimiter', () => {
    const padded = Buffer.from(form('b1', [filePart('<svg/>')]).toString().replace(`--b1${CRLF}`, `--b1 \t${CRLF}`));
    const body = Buffer.concat([Buffer.from(`This is a preamble.${CRLF}`), padded, Buffer.from('epilogue text')]);

    const parts = parseMultipart('multipart/form-data; boundary=b1', body);

    expect(parts.map((p) => p.body.toString())).toEqual(['<svg/>']);
  });

  it('reads filename* (RFC 5987) and keeps an empty file body', () => {
    const body = form('b', [{ headers: [`Content-Disposition: form-data; name="logo"; filename*=UTF-8''acme%20logo.svg`], body: '' }]);

    const [part] = parseMultipart('multipart/form-data; boundary=b', body);

    expect(part?.filename).toBe('acme logo.svg');
    expect(part?.body.length).toBe(0);
  });

  it.each<[string, string | undefined, Buffer, string]>([
    ['a JSON content type', 'application/json', Buffer.from('{}'), 'expected Content-Type multipart/form-data'],
    ['no content type', undefined, Buffer.from(''), 'got none'],
    ['a multipart type without boundary', 'multipart/form-data', Buffer.from(''), 'no usable boundary'],
    ['a body without the boundary', 'multipart/form-data; boundary=zz', Buffer.from('just text'), 'does not contain the multipart boundary'],
    ['bare LF line endings', 'multipart/form-data; boundary=zz', Buffer.from('--zz\nContent-Disposition: form-data; name="f"; filename="a"\n\n<svg/>\n--zz--\n'), 'does not end in CRLF'],
    ['no closing delimiter', 'multipart/form-data; boundary=zz', Buffer.from(`--zz${CRLF}Content-Disposition: form-data; name="f"${CRLF}${CRLF}abc`), 'ends without its closing boundary'],
    ['a part without Content-Disposition', 'multipart/form-data; boundary=zz', form('zz', [{ headers: ['Content-Type: text/plain'], body: 'x' }]), 'no Content-Disposition'],
  ])('refuses %s with 400 invalid_request', (_case, contentType, body, reason) => {
    const attempt = () => parseMultipart(contentType, body);

    expect(attempt).toThrow(MalformedMultipartError);
    expect(attempt).toThrow(reason);
    try {
      attempt();
    } catch (error) {
      expect((error as MalformedMultipartError).status).toBe(400);
      expect((error as MalformedMultipartError).code).toBe('invalid_request');
    }
  });
});

describe('firstFilePart', () => {
  it('takes the first part with a filename, whatever its field name', () => {
    const body = form('b', [
      { headers: ['Content-Disposition: form-data; name="title"'], body: 'Acme' },
      filePart('first', 'a.svg', 'upload'),
      filePart('second', 'b.svg', 'file'),
    ]);

    const file = firstFilePart(parseMultipart('multipart/form-data; boundary=b', body));

    expect([file.name, file.filename, file.body.toString()]).toEqual(['upload', 'a.svg', 'first']);
  });

  it('refuses a form with no file part, passing over an empty browser file input', () => {
    const body = form('b', [
      { headers: ['Content-Disposition: form-data; name="title"'], body: 'Acme' },
      { headers: ['Content-Disposition: form-data; name="file"; filename=""', 'Content-Type: application/octet-stream'], body: '' },
    ]);

    expect(() => firstFilePart(parseMultipart('multipart/form-data; boundary=b', body))).toThrow('the multipart body has no file part');
  });
});

describe('boundaryOf', () => {
  it('unescapes a quoted boundary', () => {
    expect(boundaryOf('multipart/form-data; boundary="a\\"b"')).toBe('a"b');
  });
});

describe('DMARC and BIMI records', () => {
  it.each<[string, string[], boolean]>([
    ['p=none', ['v=DMARC1; p=none; rua=mailto:d@acme.test'], false],
    ['p=quarantine', ['v=DMARC1; p=quarantine'], true],
    ['p=reject with pct=100', ['v=DMARC1; p=Reject; pct=100'], true],
    ['p=quarantine at pct=50', ['v=DMARC1; p=quarantine; pct=50'], false],
    ['two DMARC records', ['v=DMARC1; p=reject', 'v=DMARC1; p=quarantine'], false],
    ['an unrelated TXT beside the record', ['google-site-verification=abc', 'v=DMARC1; p=reject'], true],
    ['no record', [], false],
  ])('%s: at enforcement %s', (_case, records, expected) => {
    expect(readDmarc(records).atEnforcement).toBe(expected);
  });

  it.each<[string, string[], string]>([
    ['no record: our default rua', [], 'v=DMARC1; p=quarantine; rua=mailto:dmarc-reports@acme.test'],
    ['p=none: keeps rua and other tags, drops pct', ['v=DMARC1; p=none; pct=20; rua=mailto:r@x.test; adkim=s'], 'v=DMARC1; p=quarantine; rua=mailto:r@x.test; adkim=s'],
    ['p=reject stays reject, sp=none dropped', ['v=DMARC1; p=reject; sp=none; rua=mailto:r@x.test'], 'v=DMARC1; p=reject; rua=mailto:r@x.test'],
    ['an enforcing sp is kept', ['v=DMARC1; p=none; sp=reject'], 'v=DMARC1; p=quarantine; sp=reject; rua=mailto:dmarc-reports@acme.test'],
  ])('recommends for %s', (_case, records, expected) => {
    expect(recommendedDmarc('acme.test', readDmarc(records))).toBe(expected);
  });

  it('calls BIMI published only for one v=BIMI1 record whose l= is the logo', () => {
    const url = 'https://cdn.acme.test/logo.svg';

    expect(isBimiPublished([`v=BIMI1; l=${url}; a=`], url)).toBe(true);
    expect(isBimiPublished([`v=BIMI1;l=${url}`], url)).toBe(true);
    expect(isBimiPublished([`v=BIMI1; l=https://old.acme.test/logo.svg; a=`], url)).toBe(false);
    expect(isBimiPublished([`l=${url}; v=BIMI1`], url)).toBe(false);
    expect(isBimiPublished([`v=BIMI1; l=${url}`, `v=BIMI1; l=${url}`], url)).toBe(false);
    expect(isBimiPublished([], url)).toBe(false);
    expect(isBimiPublished([`v=BIMI1; l=; a=`], '')).toBe(false);
  });
});
