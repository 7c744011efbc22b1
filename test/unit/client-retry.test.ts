// The client's transport with an injected fetch and sleep: what it sends again, with which body,
// after how long, and what it throws. Nothing waits for real.
import { describe, expect, it } from 'vitest';
import { Postbox, PostboxError, type PostboxOptions } from '../../client/src/index';

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

type Answer = Response | Error | ((sent: Sent, init: RequestInit) => Promise<Response>);

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const failure = (status: number, code: string, headers: Record<string, string> = {}): Response =>
  json(status, { error: { code, message: `${code} happened`, status } }, { 'x-request-id': `req_${status}`, ...headers });

/** A client whose fetch answers from a script, one answer per call, and whose sleep only records. */
function scripted(answers: Answer[], options: Partial<PostboxOptions> = {}) {
  const sent: Sent[] = [];
  const slept: number[] = [];
  const fetch = (async (input: string | URL | Request, init: RequestInit = {}) => {
    const record: Sent = {
      method: init.method ?? 'GET',
      url: String(input),
      headers: init.headers as Record<string, string>,
      body: typeof init.body === 'string' ? init.body : undefined,
    };
    sent.push(record);
    const answer = answers.shift();
    if (answer === undefined) throw new Error('the script has no more answers');
    if (answer instanceof Error) throw answer;
    if (typeof answer === 'function') return answer(record, init);
    return answer;
  }) as typeof globalThis.fetch;
  const client = new Postbox({
    apiKey: 'sk_test_unit',
    baseUrl: 'http://api.test/',
    fetch,
    sleep: async (ms) => void slept.push(ms),
    random: () => 0.5,
    ...options,
  });
  return { client, sent, slept };
}

const sendBody = {
  channel: 'email' as const,
  idempotency_key: 'order-42',
  destination: { email: 'you@example.com' },
  payload: { subject: 'Hi', body_text: 'Hello' },
};
const accepted = { id: 'msg_1', status: 'queued', channel: 'email', idempotency_key: 'order-42', created_at: '2026-01-01T00:00:00.000Z' };

describe('retries', () => {
  it('answers 429 with Retry-After by waiting that long and sending the same body again', async () => {
    const { client, sent, slept } = scripted([failure(429, 'rate_limit_exceeded', { 'retry-after': '3' }), json(201, accepted)]);

    const result = await client.send(sendBody);

    expect(result).toEqual(accepted);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.body).toBe(sent[0]!.body);
    expect(JSON.parse(sent[0]!.body!)).toEqual(sendBody);
    expect(slept).toEqual([3000]);
    expect(sent[0]).toMatchObject({ method: 'POST', url: 'http://api.test/v1/send' });
    expect(sent[0]!.headers).toMatchObject({ authorization: 'Bearer sk_test_unit', 'content-type': 'application/json' });
  });

  it('backs off exponentially, with jitter and a ceiling, when no Retry-After is given', async () => {
    const { client, slept, sent } = scripted(
      [failure(503, 'service_unavailable'), failure(500, 'internal_error'), failure(502, 'internal_error'), failure(503, 'service_unavailable'), json(200, [])],
      { maxRetries: 4, maxBackoffMs: 1500 },
    );

    await client.sendBatch([sendBody]);

    // 500 · 2^attempt, capped at 1500, times (0.5 + 0.5 · random) with random 0.5.
    expect(slept).toEqual([375, 750, 1125, 1125]);
    expect(new Set(sent.map((s) => s.body)).size).toBe(1);
  });

  it('sends again while the first request with the key is in flight (409 idempotency_key_in_use)', async () => {
    const { client, sent, slept } = scripted([failure(409, 'idempotency_key_in_use', { 'retry-after': '1' }), json(201, accepted)]);

    await expect(client.send(sendBody)).resolves.toEqual(accepted);
    expect(sent).toHaveLength(2);
    expect(slept).toEqual([1000]);
  });

  it('does not send again a deterministic refusal (409 idempotency_key_reused, 400, 422)', async () => {
    for (const [status, code] of [[409, 'idempotency_key_reused'], [400, 'invalid_request'], [422, 'invalid_destination']] as const) {
      const { client, sent } = scripted([failure(status, code)]);

      const error = await client.send(sendBody).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(PostboxError);
      expect(error).toMatchObject({ code, status, requestId: `req_${status}` });
      expect(sent).toHaveLength(1);
    }
  });

  it("does not send again a 503 that names the deployment's setting (billing_not_configured, oauth_not_configured)", async () => {
    for (const code of ['billing_not_configured', 'test_send_not_configured']) {
      const { client, sent, slept } = scripted([failure(503, code), failure(503, code)]);

      const error = await client.send(sendBody).catch((e: unknown) => e);

      expect(error).toMatchObject({ code, status: 503 });
      expect(sent).toHaveLength(1);
      expect(slept).toEqual([]);
    }
  });

  it('gives up after maxRetries and throws the last answer as a typed error', async () => {
    const { client, sent } = scripted(
      [failure(429, 'rate_limit_exceeded', { 'retry-after': '1' }), failure(429, 'rate_limit_exceeded', { 'retry-after': '1' }), failure(429, 'rate_limit_exceeded', { 'retry-after': '2' })],
      { maxRetries: 2 },
    );

    const error = (await client.send(sendBody).catch((e: unknown) => e)) as PostboxError;

    expect(sent).toHaveLength(3);
    expect(error).toBeInstanceOf(PostboxError);
    expect(error).toMatchObject({ name: 'PostboxError', code: 'rate_limit_exceeded', status: 429, retryAfter: 2, requestId: 'req_429', message: 'rate_limit_exceeded happened' });
  });

  it('throws at once, with retryAfter, when asked to wait longer than maxRetryAfterSeconds', async () => {
    const { client, sent, slept } = scripted([failure(429, 'test_send_daily_limit', { 'retry-after': '40000' })]);

    const error = (await client.send(sendBody).catch((e: unknown) => e)) as PostboxError;

    expect(error).toMatchObject({ code: 'test_send_daily_limit', retryAfter: 40000 });
    expect(sent).toHaveLength(1);
    expect(slept).toEqual([]);
  });

  it('reads a Retry-After given as an HTTP date', async () => {
    const at = new Date(Date.now() + 30_000).toUTCString();
    const { client, slept } = scripted([failure(503, 'service_unavailable', { 'retry-after': at }), json(200, { keys: [], next_cursor: null })]);

    await client.keys.list();

    expect(slept).toHaveLength(1);
    expect(slept[0]).toBeGreaterThan(0);
    expect(slept[0]).toBeLessThanOrEqual(30_000);
  });

  it('sends a create again after 429 and 503 (the route did not run) but not after another 5xx', async () => {
    const created = { id: 'key_1', key: 'sk_test_x', key_prefix: 'sk_test_x', scope: 'send', name: '', test_mode: true, created_at: '' };
    const refused = scripted([failure(429, 'rate_limit_exceeded', { 'retry-after': '0' }), failure(503, 'service_unavailable'), json(201, created)]);
    const failed = scripted([failure(500, 'internal_error')]);

    await expect(refused.client.keys.create({ scope: 'send' })).resolves.toEqual(created);
    await expect(failed.client.keys.create({ scope: 'send' })).rejects.toMatchObject({ code: 'internal_error', status: 500 });
    expect(refused.sent).toHaveLength(3);
    expect(failed.sent).toHaveLength(1);
  });

  it('sends a request that got no answer again only when a repeat is harmless', async () => {
    const lost = () => new TypeError('fetch failed');
    const send = scripted([lost(), json(201, accepted)]);
    const read = scripted([lost(), json(200, { keys: [], next_cursor: null })]);
    const create = scripted([lost()]);

    await expect(send.client.send(sendBody)).resolves.toEqual(accepted);
    await expect(read.client.keys.list()).resolves.toEqual({ keys: [], next_cursor: null });
    const error = (await create.client.webhooks.create({ endpoint_url: 'https://example.com/hook' }).catch((e: unknown) => e)) as PostboxError;

    expect(send.sent).toHaveLength(2);
    expect(send.sent[1]!.body).toBe(send.sent[0]!.body);
    expect(error).toMatchObject({ code: 'connection_error', status: 0 });
    expect(create.sent).toHaveLength(1);
  });

  it('aborts an attempt that outlives timeoutMs and reports timeout', async () => {
    const hang = (_sent: Sent, init: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    const { client, sent } = scripted([hang, hang], { timeoutMs: 5, maxRetries: 1 });

    await expect(client.keys.list()).rejects.toMatchObject({ code: 'timeout', status: 0 });
    expect(sent).toHaveLength(2);
  });
});

describe('answers', () => {
  it('turns a non-envelope failure into unexpected_response with its status', async () => {
    const html = new Response('<html>Bad gateway</html>', { status: 400, headers: { 'content-type': 'text/html' } });
    const { client } = scripted([html]);

    await expect(client.keys.list()).rejects.toMatchObject({ code: 'unexpected_response', status: 400 });
  });

  it('answers undefined for 204 and text for the zone file', async () => {
    const { client } = scripted([new Response(null, { status: 204 }), new Response('example.com. 3600 IN TXT "v=spf1"\n', { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' } })]);

    await expect(client.keys.revoke('key_1')).resolves.toBeUndefined();
    await expect(client.domains.zoneFile('example.com')).resolves.toBe('example.com. 3600 IN TXT "v=spf1"\n');
  });

  it('puts path parameters and queries on the URL, escaped, leaving out what is undefined', async () => {
    const { client, sent } = scripted([new Response(null, { status: 204 }), json(200, { messages: [], next_cursor: null }), new Response(null, { status: 204 })]);

    await client.domains.remove('a/b c');
    await client.messages.list({ channel: 'email', status: undefined, limit: 5 });
    await client.suppressions.remove({ channel: 'email', recipient: 'a+b@example.com' });

    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual([
      'DELETE http://api.test/v1/domains/a%2Fb%20c',
      'GET http://api.test/v1/messages?channel=email&limit=5',
      'DELETE http://api.test/v1/suppressions?channel=email&recipient=a%2Bb%40example.com',
    ]);
  });

  it('walks every page with paginate, passing each next_cursor and the same filters', async () => {
    const { client, sent } = scripted([
      json(200, { messages: [{ id: 'msg_3' }, { id: 'msg_2' }], next_cursor: 'c1' }),
      json(200, { messages: [{ id: 'msg_1' }], next_cursor: null }),
    ]);

    const ids: string[] = [];
    for await (const message of client.paginate(client.messages.list, { channel: 'email', limit: 2 })) ids.push(message.id);

    expect(ids).toEqual(['msg_3', 'msg_2', 'msg_1']);
    expect(sent.map((s) => s.url)).toEqual(['http://api.test/v1/messages?channel=email&limit=2', 'http://api.test/v1/messages?channel=email&limit=2&cursor=c1']);
  });
});

describe('a browser session instead of a key (the Mail page signed in to the console)', () => {
  it('sends no Authorization header, and the CSRF token on every call but GET', async () => {
    const { client, sent } = scripted([json(200, { threads: [], next_cursor: null }), json(200, { id: 'thr_1', starred: true })], { apiKey: null, csrfToken: 'csrf_1' });

    await client.mail.threads.list({ folder: 'inbox' });
    await client.mail.threads.setStarred('thr_1', { starred: true });

    expect(sent.map((s) => [s.method, s.headers.authorization, s.headers['x-csrf-token']])).toEqual([
      ['GET', undefined, undefined],
      ['PUT', undefined, 'csrf_1'],
    ]);
  });

  it('still refuses a missing key: only an explicit null means a session', () => {
    expect(() => new Postbox({ apiKey: '', baseUrl: 'http://api.test' })).toThrow(/apiKey is required/);
  });
});
