// A small XML tokenizer: enough structure to judge an uploaded SVG against the BIMI profile
// without an XML library. It decodes character references in text and attribute values, so a
// forbidden value cannot hide behind `&#104;ttp:`, and it never expands declared entities: the
// profile refuses them, and expanding them is how entity bombs work.

export interface XmlAttribute {
  name: string;
  value: string;
}

export type XmlToken =
  | { kind: 'start'; name: string; attributes: XmlAttribute[]; selfClosing: boolean; offset: number }
  | { kind: 'end'; name: string; offset: number }
  | { kind: 'text'; text: string; offset: number }
  | { kind: 'comment'; offset: number }
  | { kind: 'instruction'; target: string; data: string; offset: number }
  /** `<!DOCTYPE …>` or any other `<!KEYWORD …>` markup declaration. */
  | { kind: 'declaration'; keyword: string; declaresEntities: boolean; hasInternalSubset: boolean; offset: number }
  /** A reference to an entity XML does not predefine (`&logo;`); left unexpanded. */
  | { kind: 'undefined-entity'; name: string; offset: number };

/** The input stops being XML at `offset`; tokens before it were well-formed. */
export class XmlSyntaxError extends Error {
  constructor(
    readonly detail: string,
    readonly offset: number,
  ) {
    super(detail);
    this.name = 'XmlSyntaxError';
  }
}

const NAME = /[A-Za-z_:\u00C0-\uFFFF][-A-Za-z0-9_:.\u00B7\u00C0-\uFFFF]*/y;
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const isSpace = (ch: string | undefined): boolean => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';

/** 1-based line numbers of offsets in `source`, for messages a person can act on. */
export function lineLocator(source: string): (offset: number) => number {
  const starts = [0];
  for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
  // Binary search: a file can break a rule thousands of times, each named with its line.
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/**
 * Yields the tokens of `source` in order and throws XmlSyntaxError where it stops being
 * well-formed. Element nesting is the caller's concern; this only reads the markup.
 */
export function* tokenizeXml(source: string): Generator<XmlToken, void, undefined> {
  let pos = 0;
  function fail(detail: string, at = pos): never {
    throw new XmlSyntaxError(detail, at);
  }
  const readName = (what: string): string => {
    NAME.lastIndex = pos;
    const m = NAME.exec(source);
    if (!m) return fail(`expected ${what}`);
    pos += m[0].length;
    return m[0];
  };
  const skipSpace = (): void => {
    while (isSpace(source[pos])) pos++;
  };

  /** Decodes character and predefined entity references; undefined entities stay as written. */
  function decode(raw: string, at: number, unknown: XmlToken[]): string {
    if (!raw.includes('&')) return raw;
    let out = '';
    let i = 0;
    while (i < raw.length) {
      const amp = raw.indexOf('&', i);
      if (amp < 0) {
        out += raw.slice(i);
        break;
      }
      out += raw.slice(i, amp);
      const semi = raw.indexOf(';', amp);
      const ref = semi < 0 ? '' : raw.slice(amp + 1, semi);
      if (semi < 0 || ref === '' || /[\s&<]/.test(ref)) fail('a bare "&" (write &amp;)', at + amp);
      if (ref.startsWith('#')) {
        const code = /^#x[0-9a-fA-F]+$/.test(ref) ? parseInt(ref.slice(2), 16) : /^#[0-9]+$/.test(ref) ? parseInt(ref.slice(1), 10) : NaN;
        if (!Number.isInteger(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) fail(`an invalid character reference &${ref};`, at + amp);
        out += String.fromCodePoint(code);
      } else if (PREDEFINED[ref] !== undefined) {
        out += PREDEFINED[ref];
      } else {
        unknown.push({ kind: 'undefined-entity', name: ref, offset: at + amp });
        out += `&${ref};`;
      }
      i = semi + 1;
    }
    return out;
  }

  /** Skips a `<!KEYWORD …>` declaration, quoted strings and a `[…]` internal subset included. */
  function declaration(start: number): XmlToken {
    pos = start + 2;
    const keyword = readName('a declaration keyword');
    let depth = 0;
    let hasInternalSubset = false;
    while (pos < source.length) {
      const ch = source[pos];
      if (ch === '"' || ch === "'") {
        const close = source.indexOf(ch, pos + 1);
        if (close < 0) fail(`an unterminated string in <!${keyword}`);
        pos = close + 1;
        continue;
      }
      if (ch === '[') {
        depth++;
        hasInternalSubset = true;
      }
      else if (ch === ']') depth--;
      else if (ch === '>' && depth <= 0) {
        pos++;
        const text = source.slice(start, pos);
        return { kind: 'declaration', keyword, declaresEntities: keyword === 'ENTITY' || text.includes('<!ENTITY'), hasInternalSubset, offset: start };
      }
      pos++;
    }
    return fail(`an unterminated <!${keyword}`, start);
  }

  function startTag(start: number): XmlToken[] {
    pos = start + 1;
    const name = readName('an element name after "<"');
    const attributes: XmlAttribute[] = [];
    const seen = new Set<string>();
    const pending: XmlToken[] = [];
    for (;;) {
      const hadSpace = isSpace(source[pos]);
      skipSpace();
      if (source.startsWith('/>', pos)) {
        pos += 2;
        return [...pending, { kind: 'start', name, attributes, selfClosing: true, offset: start }];
      }
      if (source[pos] === '>') {
        pos++;
        return [...pending, { kind: 'start', name, attributes, selfClosing: false, offset: start }];
      }
      if (pos >= source.length) fail(`an unterminated <${name}> tag`, start);
      if (!hadSpace) fail(`a space is needed before an attribute of <${name}>`);
      const attrName = readName(`an attribute name in <${name}>`);
      skipSpace();
      if (source[pos] !== '=') fail(`attribute ${attrName} of <${name}> has no value`);
      pos++;
      skipSpace();
      const quote = source[pos];
      if (quote !== '"' && quote !== "'") fail(`the value of ${attrName} in <${name}> is not quoted`);
      const close = source.indexOf(quote, pos + 1);
      if (close < 0) fail(`the value of ${attrName} in <${name}> is not terminated`);
      const raw = source.slice(pos + 1, close);
      if (raw.includes('<')) fail(`the value of ${attrName} in <${name}> contains "<"`);
      if (seen.has(attrName)) fail(`attribute ${attrName} appears twice in <${name}>`);
      seen.add(attrName);
      attributes.push({ name: attrName, value: decode(raw, pos + 1, pending) });
      pos = close + 1;
    }
  }

  while (pos < source.length) {
    const start = pos;
    if (source[pos] !== '<') {
      const next = source.indexOf('<', pos);
      const end = next < 0 ? source.length : next;
      const pending: XmlToken[] = [];
      const text = decode(source.slice(pos, end), pos, pending);
      yield* pending;
      yield { kind: 'text', text, offset: start };
      pos = end;
    } else if (source.startsWith('<!--', pos)) {
      const close = source.indexOf('-->', pos + 4);
      if (close < 0) fail('an unterminated comment');
      pos = close + 3;
      yield { kind: 'comment', offset: start };
    } else if (source.startsWith('<![CDATA[', pos)) {
      const close = source.indexOf(']]>', pos + 9);
      if (close < 0) fail('an unterminated CDATA section');
      yield { kind: 'text', text: source.slice(pos + 9, close), offset: start };
      pos = close + 3;
    } else if (source.startsWith('<!', pos)) {
      yield declaration(start);
    } else if (source.startsWith('<?', pos)) {
      pos += 2;
      const target = readName('a processing instruction target');
      const close = source.indexOf('?>', pos);
      if (close < 0) fail(`an unterminated <?${target}`, start);
      const data = source.slice(pos, close).trim();
      pos = close + 2;
      yield { kind: 'instruction', target, data, offset: start };
    } else if (source.startsWith('</', pos)) {
      pos += 2;
      const name = readName('an element name after "</"');
      skipSpace();
      if (source[pos] !== '>') fail(`an unterminated </${name}> tag`, start);
      pos++;
      yield { kind: 'end', name, offset: start };
    } else {
      yield* startTag(start);
    }
  }
}
