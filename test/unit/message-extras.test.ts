// shared/sending/messages/extras.ts: the headers and attachment references an internal sender may add to
// an email, refused with the spec's envelope when they could inject a header, leave the allowlist,
// or make the message too large for SES once encoded.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/errors';
import {
  base64Bytes,
  checkExtras,
  HEADER_NAMES,
  MAX_ATTACHMENTS,
  MAX_HEADER_CHARS,
  MAX_SENT_MESSAGE_BYTES,
  MESSAGE_OVERHEAD_BYTES,
  sentMessageBytes,
  type MessageExtras,
} from '../../shared/sending/messages/extras';

const content = { subject: 'Fwd: hello', text: 'quoted' };
const ref = (over: Record<string, unknown> = {}) => ({ filename: 'forwarded-message.eml', content_type: 'message/rfc822', object_key: 'inbound/raw/abc', size: 1000, ...over });

/** The error checkExtras throws, as the envelope would show it. */
function refusal(extras: unknown, channel = 'email', body: { subject: string; text?: string } = content): { code: string; status: number; message: string } {
  try {
    checkExtras(extras as MessageExtras, channel, body);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return (error as ApiError).toBody() as { code: string; status: number; message: string };
  }
  throw new Error('checkExtras accepted it');
}

describe('headers', () => {
  it('takes the allowlisted names in any case and keeps them in their canonical case', () => {
    const checked = checkExtras(
      {
        headers: [
          { name: 'in-reply-to', value: '<a@example.org>' },
          { name: 'REFERENCES', value: '<z@example.org> <a@example.org>' },
          { name: 'X-Forwarded-For', value: 'ada@example.org' },
          { name: 'x-forwarded-to', value: 'support@acme.test' },
          { name: 'X-Original-From', value: 'Ada <ada@example.org>' },
          { name: 'auto-submitted', value: 'auto-generated' },
        ],
      },
      'email',
      content,
    );

    expect(checked.headers?.map((h) => h.name)).toEqual([...HEADER_NAMES]);
    expect(checked.attachments).toBeUndefined();
  });

  it('refuses CR, LF and other control characters in a value: no header can be injected', () => {
    for (const value of ['<a@x>\r\nBcc: victim@example.org', '<a@x>\nBcc: v@x', '<a@x>\rX: y', 'a\u0000b', 'tab\there', 'caf\u00e9']) {
      expect(refusal({ headers: [{ name: 'In-Reply-To', value }] })).toEqual({
        code: 'invalid_request',
        status: 400,
        message: 'extras.headers.0.value: must be printable ASCII on one line (no CR or LF), without leading or trailing spaces',
      });
    }
  });

  it('refuses a name off the allowlist, the provider’s own headers, a repeated name, an empty or over-long value', () => {
    for (const name of ['Bcc', 'From', 'Subject', 'List-Unsubscribe', 'X-Postbox-Message-Id', 'In-Reply-To:', 'In-Reply-To\r\nBcc']) {
      const out = refusal({ headers: [{ name, value: 'x' }] });
      expect(out.code).toBe('invalid_request');
      expect(out.message).toMatch(/^extras\.headers\.0\.name: is not one of the headers/);
    }
    expect(refusal({ headers: [{ name: 'References', value: '<a@x>' }, { name: 'references', value: '<b@x>' }] }).message).toBe('extras.headers.1.name: References is set twice');
    expect(refusal({ headers: [{ name: 'References', value: '' }] }).message).toMatch(/^extras\.headers\.0\.value: must be printable ASCII/);
    expect(refusal({ headers: [{ name: 'References', value: ' <a@x>' }] }).code).toBe('invalid_request');

    const longest = 'x'.repeat(MAX_HEADER_CHARS - 'References'.length);
    expect(checkExtras({ headers: [{ name: 'References', value: longest }] }, 'email', content).headers).toHaveLength(1);
    expect(refusal({ headers: [{ name: 'References', value: `${longest}x` }] }).message).toBe(`extras.headers.0.value: References and its value may be at most ${MAX_HEADER_CHARS} characters`);
  });
});

describe('attachments', () => {
  it('takes references to stored objects and trims a file name', () => {
    const checked = checkExtras({ attachments: [ref({ filename: ' report.pdf ', content_type: 'application/pdf' })] }, 'email', content);

    expect(checked.attachments).toEqual([{ filename: 'report.pdf', content_type: 'application/pdf', object_key: 'inbound/raw/abc', size: 1000 }]);
  });

  it('refuses a name or key with control characters, a type that is not type/subtype, a bad size, too many', () => {
    expect(refusal({ attachments: [ref({ filename: 'a.txt\r\nContent-Type: text/html' })] }).message).toBe('extras.attachments.0.filename: must hold no control characters');
    expect(refusal({ attachments: [ref({ filename: '' })] }).code).toBe('invalid_request');
    expect(refusal({ attachments: [ref({ filename: 'x'.repeat(256) })] }).code).toBe('invalid_request');
    expect(refusal({ attachments: [ref({ object_key: 'a\nb' })] }).message).toBe('extras.attachments.0.object_key: must hold no control characters');
    for (const type of ['text/plain; charset=utf-8', 'message', 'text/plain\r\nX: y', `application/${'x'.repeat(80)}`]) {
      expect(refusal({ attachments: [ref({ content_type: type })] }).message).toMatch(/^extras\.attachments\.0\.content_type: /);
    }
    expect(refusal({ attachments: [ref({ size: -1 })] }).message).toMatch(/^extras\.attachments\.0\.size: /);
    expect(refusal({ attachments: [ref({ size: 1.5 })] }).message).toMatch(/^extras\.attachments\.0\.size: /);
    expect(refusal({ attachments: Array.from({ length: MAX_ATTACHMENTS + 1 }, () => ref({ size: 1 })) }).message).toMatch(/^extras\.attachments: /);
  });

  it('are for email only', () => {
    expect(refusal({ attachments: [ref()] }, 'webhook', { subject: '' })).toEqual({ code: 'invalid_request', status: 400, message: 'extras: headers and attachments are for the email channel only' });
  });
});

describe('the size of the message as SES sends it', () => {
  it('counts base64 with its line breaks: a third larger', () => {
    expect(base64Bytes(0)).toBe(0);
    expect(base64Bytes(3)).toBe(4 + 2);
    expect(base64Bytes(57)).toBe(76 + 2);
    expect(base64Bytes(58)).toBe(80 + 4);
    expect(base64Bytes(30_000_000)).toBe(40_000_000 + 2 * Math.ceil(40_000_000 / 76));
  });

  it('counts text parts by the larger of quoted-printable and base64, and adds the overhead', () => {
    expect(sentMessageBytes({ subject: '' })).toBe(MESSAGE_OVERHEAD_BYTES);
    // 'é' is two UTF-8 bytes, each =XX in quoted-printable: 6 bytes, plus the soft line break allowance.
    expect(sentMessageBytes({ subject: '', text: 'é'.repeat(76) })).toBe(MESSAGE_OVERHEAD_BYTES + Math.ceil((6 * 76 * 78) / 76));
    expect(sentMessageBytes({ subject: '', attachmentSizes: [3, 57] })).toBe(MESSAGE_OVERHEAD_BYTES + 6 + 78);
    expect(sentMessageBytes({ subject: '', headers: [{ name: 'References', value: '<a@x>' }] })).toBe(MESSAGE_OVERHEAD_BYTES + 'References'.length + 5 + 4);
  });

  it('lets attachments fill the message up to SES’s limit once encoded, and answers 413 past it', () => {
    const budget = MAX_SENT_MESSAGE_BYTES - sentMessageBytes(content);
    // The largest attachment whose base64 fits the budget.
    let size = Math.floor((budget * 3) / 4);
    while (base64Bytes(size) > budget) size--;

    expect(checkExtras({ attachments: [ref({ size })] }, 'email', content).attachments).toHaveLength(1);
    const out = refusal({ attachments: [ref({ size }), ref({ size: 1 })] });
    expect(out).toMatchObject({ code: 'payload_too_large', status: 413 });
    expect(out.message).toContain(`SES sends at most ${MAX_SENT_MESSAGE_BYTES}`);
    // A raw message of 30 MB does not fit: its base64 alone is past 40 MB.
    expect(refusal({ attachments: [ref({ size: 30_000_000 })] }).code).toBe('payload_too_large');
  });
});
