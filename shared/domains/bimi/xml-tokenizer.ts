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

/** Reads `source` from `pos` on; each method reads one kind of markup and moves `pos` past it. */
class XmlReader {
  pos = 0;

  constructor(readonly source: string) {}

  get done(): boolean {
    return this.pos >= this.source.length;
  }

  fail(detail: string, at = this.pos): never {
    throw new XmlSyntaxError(detail, at);
  }

  readName(what: string): string {
    NAME.lastIndex = this.pos;
    const m = NAME.exec(this.source);
    if (!m) return this.fail(`expected ${what}`);
    this.pos += m[0].length;
    return m[0];
  }

  skipSpace(): void {
    while (isSpace(this.source[this.pos])) this.pos++;
  }

  /** The tokens of the markup or text at `pos`: one, or undefined-entity tokens before it. */
  next(): XmlToken[] {
    const { source, pos: start } = this;
    if (source[start] !== '<') return this.text(start);
    if (source.startsWith('<!--', start)) return [this.skipTo('-->', 4, 'an unterminated comment', { kind: 'comment', offset: start })];
    if (source.startsWith('<![CDATA[', start)) return [this.cdata(start)];
    if (source.startsWith('<!', start)) return [this.declaration(start)];
    if (source.startsWith('<?', start)) return [this.instruction(start)];
    if (source.startsWith('</', start)) return [this.endTag(start)];
    return this.startTag(start);
  }

  private text(start: number): XmlToken[] {
    const next = this.source.indexOf('<', start);
    const end = next < 0 ? this.source.length : next;
    const pending: XmlToken[] = [];
    const text = this.decode(this.source.slice(start, end), start, pending);
    this.pos = end;
    return [...pending, { kind: 'text', text, offset: start }];
  }

  private skipTo(close: string, from: number, unterminated: string, token: XmlToken): XmlToken {
    const at = this.source.indexOf(close, this.pos + from);
    if (at < 0) this.fail(unterminated);
    this.pos = at + close.length;
    return token;
  }

  private cdata(start: number): XmlToken {
    const close = this.source.indexOf(']]>', start + 9);
    if (close < 0) this.fail('an unterminated CDATA section');
    this.pos = close + 3;
    return { kind: 'text', text: this.source.slice(start + 9, close), offset: start };
  }

  private instruction(start: number): XmlToken {
    this.pos += 2;
    const target = this.readName('a processing instruction target');
    const close = this.source.indexOf('?>', this.pos);
    if (close < 0) this.fail(`an unterminated <?${target}`, start);
    const data = this.source.slice(this.pos, close).trim();
    this.pos = close + 2;
    return { kind: 'instruction', target, data, offset: start };
  }

  private endTag(start: number): XmlToken {
    this.pos += 2;
    const name = this.readName('an element name after "</"');
    this.skipSpace();
    if (this.source[this.pos] !== '>') this.fail(`an unterminated </${name}> tag`, start);
    this.pos++;
    return { kind: 'end', name, offset: start };
  }

  /** Decodes character and predefined entity references; undefined entities stay as written. */
  decode(raw: string, at: number, unknown: XmlToken[]): string {
    if (!raw.includes('&')) return raw;
    let out = '';
    let i = 0;
    while (i < raw.length) {
      const amp = raw.indexOf('&', i);
      if (amp < 0) return out + raw.slice(i);
      out += raw.slice(i, amp);
      const semi = raw.indexOf(';', amp);
      const ref = semi < 0 ? '' : raw.slice(amp + 1, semi);
      if (semi < 0 || ref === '' || /[\s&<]/.test(ref)) this.fail('a bare "&" (write &amp;)', at + amp);
      out += this.reference(ref, at + amp, unknown);
      i = semi + 1;
    }
    return out;
  }

  private reference(ref: string, at: number, unknown: XmlToken[]): string {
    if (ref.startsWith('#')) {
      const code = /^#x[0-9a-fA-F]+$/.test(ref) ? parseInt(ref.slice(2), 16) : /^#[0-9]+$/.test(ref) ? parseInt(ref.slice(1), 10) : NaN;
      if (!Number.isInteger(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) this.fail(`an invalid character reference &${ref};`, at);
      return String.fromCodePoint(code);
    }
    if (PREDEFINED[ref] !== undefined) return PREDEFINED[ref];
    unknown.push({ kind: 'undefined-entity', name: ref, offset: at });
    return `&${ref};`;
  }

  /** Skips a `<!KEYWORD …>` declaration, quoted strings and a `[…]` internal subset included. */
  declaration(start: number): XmlToken {
    const { source } = this;
    this.pos = start + 2;
    const keyword = this.readName('a declaration keyword');
    let depth = 0;
    let hasInternalSubset = false;
    while (this.pos < source.length) {
      const ch = source[this.pos];
      if (ch === '"' || ch === "'") {
        const close = source.indexOf(ch, this.pos + 1);
        if (close < 0) this.fail(`an unterminated string in <!${keyword}`);
        this.pos = close + 1;
        continue;
      }
      if (ch === '[') {
        depth++;
        hasInternalSubset = true;
      } else if (ch === ']') depth--;
      else if (ch === '>' && depth <= 0) {
        this.pos++;
        const text = source.slice(start, this.pos);
        return { kind: 'declaration', keyword, declaresEntities: keyword === 'ENTITY' || text.includes('<!ENTITY'), hasInternalSubset, offset: start };
      }
      this.pos++;
    }
    return this.fail(`an unterminated <!${keyword}`, start);
  }

  startTag(start: number): XmlToken[] {
    this.pos = start + 1;
    const name = this.readName('an element name after "<"');
    const attributes: XmlAttribute[] = [];
    const seen = new Set<string>();
    const pending: XmlToken[] = [];
    for (;;) {
      const hadSpace = isSpace(this.source[this.pos]);
      this.skipSpace();
      const selfClosing = this.source.startsWith('/>', this.pos);
      if (selfClosing || this.source[this.pos] === '>') {
        this.pos += selfClosing ? 2 : 1;
        return [...pending, { kind: 'start', name, attributes, selfClosing, offset: start }];
      }
      if (this.pos >= this.source.length) this.fail(`an unterminated <${name}> tag`, start);
      if (!hadSpace) this.fail(`a space is needed before an attribute of <${name}>`);
      attributes.push(this.attribute(name, seen, pending));
    }
  }

  private attribute(element: string, seen: Set<string>, pending: XmlToken[]): XmlAttribute {
    const name = this.readName(`an attribute name in <${element}>`);
    this.skipSpace();
    if (this.source[this.pos] !== '=') this.fail(`attribute ${name} of <${element}> has no value`);
    this.pos++;
    this.skipSpace();
    const quote = this.source[this.pos];
    if (quote !== '"' && quote !== "'") this.fail(`the value of ${name} in <${element}> is not quoted`);
    const close = this.source.indexOf(quote, this.pos + 1);
    if (close < 0) this.fail(`the value of ${name} in <${element}> is not terminated`);
    const raw = this.source.slice(this.pos + 1, close);
    if (raw.includes('<')) this.fail(`the value of ${name} in <${element}> contains "<"`);
    if (seen.has(name)) this.fail(`attribute ${name} appears twice in <${element}>`);
    seen.add(name);
    const value = this.decode(raw, this.pos + 1, pending);
    this.pos = close + 1;
    return { name, value };
  }
}

/**
 * Yields the tokens of `source` in order and throws XmlSyntaxError where it stops being
 * well-formed. Element nesting is the caller's concern; this only reads the markup.
 */
export function* tokenizeXml(source: string): Generator<XmlToken, void, undefined> {
  const reader = new XmlReader(source);
  while (!reader.done) yield* reader.next();
}
