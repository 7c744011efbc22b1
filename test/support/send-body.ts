// The body of a POST /v1/send email, as the send tests build it: each call a fresh idempotency key
// (`<prefix>-<n>`), the rest from the defaults given here, anything overridden per call.
export interface EmailDefaults {
  to?: string;
  from?: string;
  subject?: string;
  text?: string;
}

export type EmailBody = Record<string, any> & { idempotency_key: string };

/** A builder of email send bodies with keys `<prefix>-1`, `<prefix>-2`, … */
export function emailSends(prefix: string, defaults: EmailDefaults = {}): (over?: Record<string, unknown>) => EmailBody {
  let n = 0;
  return (over = {}) => ({
    channel: 'email',
    idempotency_key: `${prefix}-${++n}`,
    destination: { email: defaults.to ?? 'reader@example.com' },
    payload: { subject: defaults.subject ?? 'Hi', body_text: defaults.text ?? 'Hello' },
    metadata: { from_email: defaults.from ?? 'hello@acme.test' },
    ...over,
  });
}
