import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../shared/errors';
import { MAX_JSON_DEPTH, parseJsonBody } from '../../shared/http/json-body';

const nested = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('parseJsonBody', () => {
  it('parses ordinary JSON', () => {
    expect(parseJsonBody('{"a":[1,{"b":"c"}],"n":-1.5e10}')).toEqual({ a: [1, { b: 'c' }], n: -1.5e10 });
  });

  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more, naming where`, () => {
    expect(() => parseJsonBody(nested(MAX_JSON_DEPTH))).not.toThrow();
    expect(() => parseJsonBody(nested(MAX_JSON_DEPTH + 1))).toThrow(new InvalidRequestError(`body${'.a'.repeat(MAX_JSON_DEPTH)}: nested deeper than ${MAX_JSON_DEPTH} levels`));
  });

  it('refuses a value nested thousands deep without overflowing the stack', () => {
    expect(() => parseJsonBody('['.repeat(200_000) + ']'.repeat(200_000))).toThrow(InvalidRequestError);
  });

  it('refuses numbers that parse to Infinity, wherever they are', () => {
    expect(() => parseJsonBody('1e999')).toThrow(new InvalidRequestError('body: number out of range'));
    expect(() => parseJsonBody('{"metadata":{"x":[1,-1e999]}}')).toThrow(new InvalidRequestError('body.metadata.x[1]: number out of range'));
  });

  it('refuses malformed JSON', () => {
    expect(() => parseJsonBody('{')).toThrow(new InvalidRequestError('body: malformed JSON'));
  });
});
