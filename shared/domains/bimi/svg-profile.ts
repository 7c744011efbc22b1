// The SVG Tiny Portable/Secure profile BIMI requires of a logo, checked on the uploaded bytes.
// Every problem is collected rather than the first, so one round trip tells the uploader all
// they must fix. Mailbox providers refuse a logo that breaks the profile, so we refuse it first.
import { lineLocator, tokenizeXml, XmlSyntaxError, type XmlAttribute } from './xml-tokenizer';

const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';
/** Upper bound on the problems named in one message; a generated file can break a rule thousands of times. */
const MAX_LISTED = 25;

/** Elements the profile leaves out, with the reason given to the uploader. */
const FORBIDDEN_ELEMENTS: Record<string, string> = {
  script: 'scripts are not allowed',
  handler: 'scripts are not allowed',
  listener: 'event listeners are not allowed',
  foreignobject: 'foreignObject is not allowed',
  image: 'embedded images are not allowed (draw the logo as vector shapes)',
  video: 'embedded media is not allowed',
  audio: 'embedded media is not allowed',
  animation: 'embedded media is not allowed',
  animate: 'animation is not allowed',
  animatemotion: 'animation is not allowed',
  animatetransform: 'animation is not allowed',
  animatecolor: 'animation is not allowed',
  set: 'animation is not allowed',
  discard: 'animation is not allowed',
};

const localName = (name: string): string => name.slice(name.indexOf(':') + 1);
const prefixOf = (name: string): string | undefined => (name.includes(':') ? name.slice(0, name.indexOf(':')) : undefined);
const attr = (attributes: readonly XmlAttribute[], name: string): string | undefined => attributes.find((a) => a.name === name)?.value;

/** `url(...)` targets and `@import`s in a style sheet or presentation attribute that leave the document. */
function externalCssReferences(css: string): string[] {
  const found: string[] = [];
  for (const m of css.matchAll(/url\(\s*(["']?)([^"'()]*)\1\s*\)/gi)) {
    const target = (m[2] ?? '').trim();
    if (!target.startsWith('#')) found.push(`url(${target})`);
  }
  if (/@import/i.test(css)) found.push('@import');
  return found;
}

function checkViewBox(viewBox: string | undefined): string | undefined {
  if (viewBox === undefined) return 'the root <svg> has no viewBox; a square one such as viewBox="0 0 100 100" is required';
  const parts = viewBox.trim().split(/[\s,]+/).map(Number);
  if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n))) return `viewBox="${viewBox}" is not four numbers`;
  const [, , width, height] = parts as [number, number, number, number];
  if (width <= 0 || height <= 0) return `viewBox="${viewBox}" has no area`;
  if (width !== height) return `the viewBox is not square (width ${width}, height ${height})`;
  return undefined;
}

function checkRoot(name: string, attributes: readonly XmlAttribute[]): string[] {
  if (localName(name) !== 'svg') return [`the root element is <${name}>, not <svg>`];
  const problems: string[] = [];
  const prefix = prefixOf(name);
  if (attr(attributes, prefix ? `xmlns:${prefix}` : 'xmlns') !== SVG_NAMESPACE) problems.push(`the root <svg> must declare xmlns="${SVG_NAMESPACE}"`);
  const version = attr(attributes, 'version');
  if (version !== '1.2') problems.push(version === undefined ? 'the root <svg> needs version="1.2"' : `the root <svg> has version="${version}"; version="1.2" is required`);
  const profile = attr(attributes, 'baseProfile');
  if (profile !== 'tiny-ps') problems.push(profile === undefined ? 'the root <svg> needs baseProfile="tiny-ps"' : `the root <svg> has baseProfile="${profile}"; baseProfile="tiny-ps" is required`);
  const viewBoxProblem = checkViewBox(attr(attributes, 'viewBox'));
  if (viewBoxProblem) problems.push(viewBoxProblem);
  for (const position of ['x', 'y']) {
    if (attr(attributes, position) !== undefined) problems.push(`the root <svg> must not have an ${position} attribute`);
  }
  return problems;
}

/** Problems with one element's own name and attributes, wherever it sits. */
function checkElement(name: string, attributes: readonly XmlAttribute[], line: number): string[] {
  const problems: string[] = [];
  const reason = FORBIDDEN_ELEMENTS[localName(name).toLowerCase()];
  if (reason) problems.push(`line ${line}: <${name}>: ${reason}`);
  for (const { name: attrName, value } of attributes) {
    const local = localName(attrName);
    if (/^on/i.test(local)) problems.push(`line ${line}: ${attrName} on <${name}>: event handler attributes are not allowed`);
    if (local === 'href' && !value.trim().startsWith('#')) problems.push(`line ${line}: ${attrName}="${value}" on <${name}>: only references inside the file (#id) are allowed`);
    for (const ref of externalCssReferences(value)) problems.push(`line ${line}: ${ref} in ${attrName} on <${name}>: external references are not allowed`);
  }
  return problems;
}

/**
 * Every way `bytes` falls short of SVG Tiny PS as BIMI uses it; empty when the logo is acceptable.
 * Stops reading at the first XML syntax error, reporting what it found up to there.
 */
export function svgProfileProblems(bytes: Buffer): string[] {
  let source: string;
  try {
    source = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return ['the file is not UTF-8 text'];
  }
  const problems: string[] = [];
  const open: string[] = [];
  let root: string | undefined;
  let hasTitle = false;
  let wellFormed = true;
  const at = lineLocator(source);
  try {
    for (const token of tokenizeXml(source)) {
      switch (token.kind) {
        case 'start': {
          if (open.length === 0) {
            if (root !== undefined) throw new XmlSyntaxError(`a second root element <${token.name}>`, token.offset);
            root = token.name;
            problems.push(...checkRoot(token.name, token.attributes));
          } else if (open.length === 1 && localName(token.name) === 'title') {
            hasTitle = true;
          }
          problems.push(...checkElement(token.name, token.attributes, at(token.offset)));
          if (!token.selfClosing) open.push(token.name);
          break;
        }
        case 'end': {
          const expected = open.pop();
          if (expected !== token.name) throw new XmlSyntaxError(expected ? `</${token.name}> closes <${expected}>` : `</${token.name}> closes nothing`, token.offset);
          break;
        }
        case 'text':
          if (open.length === 0 && token.text.trim() !== '') throw new XmlSyntaxError('text outside the root element', token.offset);
          if (open.length > 0 && localName(open[open.length - 1] as string) === 'style') {
            for (const ref of externalCssReferences(token.text)) problems.push(`line ${at(token.offset)}: ${ref} in <style>: external references are not allowed`);
          }
          break;
        case 'instruction':
          if (token.target.toLowerCase() === 'xml-stylesheet') problems.push(`line ${at(token.offset)}: <?xml-stylesheet?>: external style sheets are not allowed`);
          break;
        case 'declaration':
          if (token.declaresEntities) problems.push(`line ${at(token.offset)}: XML entity declarations are not allowed`);
          // Other internal-subset declarations can still change the document (ATTLIST defaults can add an onload).
          else if (token.hasInternalSubset) problems.push(`line ${at(token.offset)}: declarations inside a DOCTYPE ([...]) are not allowed`);
          else if (token.keyword !== 'DOCTYPE') throw new XmlSyntaxError(`an unexpected <!${token.keyword}> declaration`, token.offset);
          break;
        case 'undefined-entity':
          problems.push(`line ${at(token.offset)}: entity reference &${token.name}; is not allowed (only &lt; &gt; &amp; &quot; &apos; and character references)`);
          break;
        case 'comment':
          break;
      }
    }
    if (root === undefined) throw new XmlSyntaxError('no root element', source.length);
    if (open.length > 0) throw new XmlSyntaxError(`<${open[open.length - 1]}> is never closed`, source.length);
  } catch (error) {
    if (!(error instanceof XmlSyntaxError)) throw error;
    wellFormed = false;
    problems.push(`the file is not well-formed XML (line ${at(error.offset)}: ${error.detail})`);
  }
  // After a syntax error the title may simply lie beyond where reading stopped.
  if (wellFormed && root !== undefined && localName(root) === 'svg' && !hasTitle) problems.push('the root <svg> needs a <title> child naming the brand');
  return [...new Set(problems)];
}

/** The problems as one sentence for the 400 message, bounded in length. */
export function describeProblems(problems: readonly string[]): string {
  const listed = problems.slice(0, MAX_LISTED).join('; ');
  return problems.length > MAX_LISTED ? `${listed}; and ${problems.length - MAX_LISTED} more` : listed;
}
