// The HttpClient adapter and its SSRF guard: which addresses are refused, how URLs are checked
// when saved, and posts against real receivers on loopback: status handling, no redirects, the
// deadline, byte-exact delivery, and that the connection goes to the one checked answer (DNS
// rebinding cannot move it).
import { isIP, Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { classifyAddress } from '../../shared/adapters/address-class';
import { GuardedHttp, type GuardedCheck, type GuardedHttpOptions, type Lookup } from '../../shared/adapters/guarded-http';
import { freePort } from '../../local/emulators';
import { selfSignedCert, startHttpReceiver, startHttpsReceiver, type Receiver } from '../support/receivers';

const strict = { allowPrivate: false };
const local = { allowPrivate: true };

/** Checks a URL as the adapter built with this policy (and resolver) does. */
const check = (url: string, policy: GuardedHttpOptions, lookup?: Lookup): Promise<GuardedCheck> => new GuardedHttp({ ...policy, lookup }).check(url);

/** POSTs through the adapter built with this policy; `lookup` and `ca` are its constructor options. */
const post = (url: string, body: string, headers: Record<string, string>, policy: GuardedHttpOptions, options: { timeoutMs?: number; lookup?: Lookup; ca?: string | Buffer } = {}) =>
  new GuardedHttp({ ...policy, lookup: options.lookup, ca: options.ca }).post(url, { headers, body, timeoutMs: options.timeoutMs });

/** The reason of a refused check; fails the test when the URL was accepted. */
function reasonOf(checked: GuardedCheck): string {
  expect(checked.ok).toBe(false);
  return checked.ok ? '' : checked.reason;
}
const PUBLIC_V4 = '93.184.215.14';

/** A fake resolver answering every name with these addresses. */
const answering = (...ips: string[]) => vi.fn<Lookup>(async () => ips.map((address) => ({ address, family: isIP(address) as 4 | 6 })));

/** Answers with `first` on the first call and `later` on every call after: a rebinding DNS server. */
const rebinding = (first: string, later: string) => {
  let calls = 0;
  return vi.fn<Lookup>(async () => {
    const address = calls++ === 0 ? first : later;
    return [{ address, family: isIP(address) as 4 | 6 }];
  });
};

describe('classifyAddress', () => {
  it.each([
    // IPv4
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['169.254.0.1', 'link_local'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.1', 'documentation'],
    ['203.0.113.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    // IPv6
    ['2606:4700:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf::1', 'link_local'],
    ['fec0::1', 'reserved'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['2001:0:4136:e378::1', 'reserved'], // Teredo
    ['100::1', 'reserved'],
    ['::7f00:1', 'reserved'], // IPv4-compatible, deprecated
    // IPv4-mapped: the embedded class when not public, otherwise still refused as mapped
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.5', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:8.8.8.8', 'ipv4_mapped'],
    // NAT64 and 6to4: the embedded IPv4 decides
    ['64:ff9b::10.0.0.5', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::808:808', 'public'],
    ['64:ff9b:1::1', 'reserved'],
    ['2002:c0a8:101::1', 'private'], // 192.168.1.1
    ['2002:a9fe:a9fe::', 'metadata'], // 169.254.169.254
    ['2002:808:808::1', 'public'],
    // not addresses
    ['example.com', 'invalid'],
    ['1.2.3', 'invalid'],
    ['256.0.0.1', 'invalid'],
  ])('%s is %s', (ip, expected) => {
    // Act
    const cls = classifyAddress(ip);

    // Assess
    expect(cls).toBe(expected);
  });
});

describe('check', () => {
  it('accepts an https URL whose name resolves to a public address, resolving it once', async () => {
    // Prepare
    const lookup = answering(PUBLIC_V4, '2606:2800:21f:cb07:6820:80da:af6b:8b2c');

    // Act
    const checked = await check('https://hooks.example.com:8443/in?x=1', strict, lookup);

    // Assess
    expect(checked).toEqual({
      ok: true,
      url: 'https://hooks.example.com:8443/in?x=1',
      addresses: [
        { address: PUBLIC_V4, family: 4 },
        { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
      ],
    });
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(lookup).toHaveBeenCalledWith('hooks.example.com');
  });

  it('accepts a public IP literal without resolving', async () => {
    const lookup = answering(PUBLIC_V4);

    const checked = await check('https://[2606:4700:4700::1111]/hook', strict, lookup);

    expect(checked).toMatchObject({ ok: true, addresses: [{ address: '2606:4700:4700::1111', family: 6 }] });
    expect(lookup).not.toHaveBeenCalled();
  });

  it('refuses with a reason naming the address and no request field (the caller names its field)', async () => {
    // Act
    const checked = await check('https://hooks.example.com/', strict, answering('10.0.0.5'));

    // Assess
    expect(checked).toEqual({ ok: false, reason: 'resolves to 10.0.0.5, a private address' });
  });

  it.each([
    ['http://hooks.example.com/', 'must be an https URL'],
    ['ftp://hooks.example.com/', 'must be an https URL'],
    ['file:///etc/passwd', 'must be an https URL'],
    ['not a url', 'is not a valid URL'],
    ['https://user:secret@hooks.example.com/', 'must not contain credentials'],
    ['https://user@hooks.example.com/', 'must not contain credentials'],
  ])('refuses %s: %s', async (url, reason) => {
    const lookup = answering(PUBLIC_V4);

    await expect(check(url, strict, lookup)).resolves.toEqual({ ok: false, reason });

    expect(lookup).not.toHaveBeenCalled();
  });

  it.each([
    ['https://127.0.0.1/', 'loopback'],
    ['https://127.1/', 'loopback'],
    ['https://0x7f.1/', 'loopback'],
    ['https://2130706433/', 'loopback'],
    ['https://0177.0.0.1/', 'loopback'],
    ['https://127.0.0.1./', 'loopback'],
    ['https://0/', 'unspecified'],
    ['https://10.0.0.5/', 'private'],
    ['https://172.16.5.4/', 'private'],
    ['https://192.168.0.10/', 'private'],
    ['https://100.64.1.1/', 'carrier-grade NAT'],
    ['https://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['https://169.254.10.10/', 'link-local'],
    ['https://224.0.0.1/', 'multicast'],
    ['https://255.255.255.255/', 'broadcast'],
    ['https://240.0.0.1/', 'reserved'],
    ['https://192.0.2.1/', 'documentation'],
    ['https://198.18.0.1/', 'benchmarking'],
    ['https://[::1]/', 'loopback'],
    ['https://[::]/', 'unspecified'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'],
    ['https://[::ffff:8.8.8.8]/', 'IPv4-mapped'],
    ['https://[64:ff9b::a00:5]/', 'private'],
    ['https://[2002:c0a8:101::1]/', 'private'],
    ['https://[fd00:ec2::254]/', 'cloud metadata'],
    ['https://[fc00::1]/', 'unique local'],
    ['https://[fe80::1]/', 'link-local'],
    ['https://[ff02::1]/', 'multicast'],
    ['https://[2001:db8::1]/', 'documentation'],
  ])('refuses the IP literal in %s (%s)', async (url, words) => {
    // Prepare
    const lookup = answering(PUBLIC_V4);

    // Act
    const checked = await check(url, strict, lookup);

    // Assess
    expect(reasonOf(checked)).toContain(`${words} address`);
    expect(lookup).not.toHaveBeenCalled();
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.1.1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['239.1.1.1', 'multicast'],
    ['203.0.113.9', 'documentation'],
    ['::1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:1.1.1.1', 'IPv4-mapped'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['fd12::1', 'unique local'],
    ['fe80::abcd', 'link-local'],
    ['ff05::2', 'multicast'],
    ['2001:db8:1::1', 'documentation'],
  ])('refuses a name resolving to %s (%s)', async (address, words) => {
    // Act
    const checked = await check('https://hooks.example.com/', strict, answering(address));

    // Assess
    expect(reasonOf(checked)).toMatch(new RegExp(`^resolves to ${address.replace(/\./g, '\\.')}, an? ${words} address$`));
  });

  it.each([
    [PUBLIC_V4, '10.0.0.5'],
    ['10.0.0.5', PUBLIC_V4],
    [PUBLIC_V4, '::1'],
  ])('refuses a name resolving to both %s and %s', async (a, b) => {
    expect(reasonOf(await check('https://hooks.example.com/', strict, answering(a, b)))).toMatch(/^resolves to 10\.0\.0\.5|^resolves to ::1/);
  });

  it.each(['localhost', 'LOCALHOST.', 'api.localhost', 'metadata.google.internal', 'db.internal', 'printer.local', 'router.home.arpa', 'intranet'])(
    'refuses the name %s before resolving it',
    async (host) => {
      const lookup = answering(PUBLIC_V4);

      expect(reasonOf(await check(`https://${host}/hook`, strict, lookup))).toContain(host.toLowerCase().replace(/\.$/, ''));

      expect(lookup).not.toHaveBeenCalled();
    },
  );

  it('refuses a name that does not resolve, naming the DNS error', async () => {
    const lookup = vi.fn<Lookup>(async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
    });

    await expect(check('https://nowhere.example/', strict, lookup)).resolves.toEqual({
      ok: false,
      reason: 'could not resolve nowhere.example (ENOTFOUND)',
    });
  });

  it('refuses a name with no addresses', async () => {
    await expect(check('https://empty.example/', strict, answering())).resolves.toEqual({ ok: false, reason: 'could not resolve empty.example (ENODATA)' });
  });

  describe('with allowPrivate (local runtime)', () => {
    it('accepts http://127.0.0.1:PORT', async () => {
      const checked = await check('http://127.0.0.1:4567/hook', local);

      expect(checked).toEqual({ ok: true, url: 'http://127.0.0.1:4567/hook', addresses: [{ address: '127.0.0.1', family: 4 }] });
    });

    it('accepts local names and private answers', async () => {
      const checked = await check('http://host.docker.internal:8080/', local, answering('192.168.65.254'));

      expect(checked).toMatchObject({ ok: true, addresses: [{ address: '192.168.65.254', family: 4 }] });
    });

    it.each([
      ['http://169.254.169.254/latest/meta-data/', answering(PUBLIC_V4)],
      ['http://[fd00:ec2::254]/', answering(PUBLIC_V4)],
      ['http://metadata.google.internal/', answering(PUBLIC_V4)],
      ['http://sneaky.example/', answering('169.254.169.254')],
    ])('still refuses cloud metadata: %s', async (url, lookup) => {
      expect(reasonOf(await check(url, local, lookup))).toMatch(/metadata/);
    });

    it('still refuses schemes other than http and https', async () => {
      await expect(check('gopher://127.0.0.1:70/', local)).resolves.toEqual({ ok: false, reason: 'must be an http or https URL' });
    });
  });
});

describe('post', () => {
  let receiver: Receiver;
  let other: Receiver;

  beforeAll(async () => {
    receiver = await startHttpReceiver();
    other = await startHttpReceiver();
  });
  afterAll(async () => Promise.all([receiver.close(), other.close()]));
  beforeEach(() => {
    receiver.requests.length = 0;
    other.requests.length = 0;
    receiver.reply({});
    other.reply({});
  });

  it('delivers method, path, headers and body byte-exact and reports a 2xx as ok', async () => {
    // Prepare
    const body = JSON.stringify({ type: 'delivered', subject: 'Grüße ✉️ — ok', n: 1 }) + '\n';
    const headers = { 'Content-Type': 'application/json', 'Webhook-Signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=', 'User-Agent': 'postbox-webhooks/1' };
    receiver.reply({ status: 204 });

    // Act
    const result = await post(`${receiver.url}/hooks/in?src=postbox`, body, headers, local);

    // Assess
    expect(result).toMatchObject({ ok: true, status: 204 });
    expect(result.error).toBeUndefined();
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    const [got] = receiver.requests;
    expect(got?.method).toBe('POST');
    expect(got?.path).toBe('/hooks/in?src=postbox');
    expect(got?.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(got?.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(got?.headers['content-type']).toBe('application/json');
    expect(got?.headers['webhook-signature']).toBe(headers['Webhook-Signature']);
    expect(got?.headers['user-agent']).toBe('postbox-webhooks/1');
    expect(got?.headers.host).toBe(`127.0.0.1:${receiver.port}`);
  });

  it('keeps the framing headers its own: a caller cannot set length, chunking or host', async () => {
    const body = '{"a":1}';

    const result = await post(`${receiver.url}/`, body, { 'Content-Length': '1', 'transfer-encoding': 'chunked', Host: 'evil.example' }, local);

    expect(result.ok).toBe(true);
    const [got] = receiver.requests;
    expect(got?.body.toString()).toBe(body);
    expect(got?.headers['content-length']).toBe('7');
    expect(got?.headers['transfer-encoding']).toBeUndefined();
    expect(got?.headers.host).toBe(`127.0.0.1:${receiver.port}`);
  });

  it('reports a 500 as not ok with its status', async () => {
    receiver.reply({ status: 500, body: 'boom' });

    const result = await post(`${receiver.url}/`, '{}', {}, local);

    expect(result).toMatchObject({ ok: false, status: 500 });
  });

  it('does not follow a redirect: the target receives nothing', async () => {
    // Prepare
    receiver.reply({ status: 302, redirectTo: `${other.url}/stolen` });

    // Act
    const result = await post(`${receiver.url}/`, '{}', {}, local);

    // Assess
    expect(result).toMatchObject({ ok: false, status: 302, error: 'redirect not followed' });
    expect(receiver.requests).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(other.requests).toHaveLength(0);
  });

  it('gives up on a receiver that never answers at the deadline', async () => {
    // Prepare
    receiver.reply({ hang: 'before-status' });

    // Act
    const result = await post(`${receiver.url}/`, '{}', {}, local, { timeoutMs: 300 });

    // Assess
    expect(result).toMatchObject({ ok: false, status: 0, error: 'timeout' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(receiver.requests).toHaveLength(1);
  });

  it('bounds a request that names no deadline by the one it was built with', async () => {
    receiver.reply({ hang: 'before-status' });

    const result = await new GuardedHttp({ allowPrivate: true, timeoutMs: 200 }).post(`${receiver.url}/`, { headers: {}, body: '{}' });

    expect(result).toMatchObject({ ok: false, status: 0, error: 'timeout' });
  });

  it('counts a slow answer as a timeout', async () => {
    receiver.reply({ status: 200, delayMs: 1000 });

    const result = await post(`${receiver.url}/`, '{}', {}, local, { timeoutMs: 200 });

    expect(result).toMatchObject({ ok: false, status: 0, error: 'timeout' });
  });

  it('keeps the status when the body never ends, returning at the deadline', async () => {
    receiver.reply({ status: 200, hang: 'after-headers' });

    const result = await post(`${receiver.url}/`, '{}', {}, local, { timeoutMs: 300 });

    expect(result).toMatchObject({ ok: true, status: 200 });
  });

  it('reads at most 64 KiB of a large answer and does not wait for the rest', async () => {
    receiver.reply({ status: 200, hang: 'after-headers', body: Buffer.alloc(256 * 1024, 'x') });

    // A deadline past the test's own timeout: waiting for the rest would fail the test.
    const result = await post(`${receiver.url}/`, '{}', {}, local, { timeoutMs: 600_000 });

    expect(result).toMatchObject({ ok: true, status: 200 });
  });

  it('reports a closed port as a connection error', async () => {
    const port = await freePort();

    const result = await post(`http://127.0.0.1:${port}/`, '{}', {}, local);

    expect(result.ok).toBe(false);
    expect(result.status).toBe(0);
    expect(result.error).toMatch(/^connection: ECONNREFUSED/);
  });

  it('refuses a private receiver without allowPrivate and sends nothing', async () => {
    const plain = await post(`${receiver.url}/`, '{}', {}, strict);
    const secure = await post(`https://127.0.0.1:${receiver.port}/`, '{}', {}, strict);
    const named = await post(`https://hook.test:${receiver.port}/`, '{}', {}, strict, { lookup: answering('127.0.0.1') });

    expect(plain).toMatchObject({ ok: false, status: 0, error: 'refused: must be an https URL' });
    expect(secure).toMatchObject({ ok: false, status: 0, error: 'refused: 127.0.0.1 is a loopback address' });
    expect(named).toMatchObject({ ok: false, status: 0, error: 'refused: resolves to 127.0.0.1, a loopback address' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('reports a name that does not resolve as a DNS failure', async () => {
    const lookup = vi.fn<Lookup>(async () => {
      throw Object.assign(new Error('queryA ESERVFAIL'), { code: 'ESERVFAIL' });
    });

    const result = await post('https://hooks.example.com/', '{}', {}, strict, { lookup });

    expect(result).toMatchObject({ ok: false, status: 0, error: 'dns: could not resolve hooks.example.com (ESERVFAIL)' });
  });

  it('bounds the lookup by the deadline too', async () => {
    const lookup = vi.fn<Lookup>(() => new Promise(() => undefined));

    const result = await post('https://hooks.example.com/', '{}', {}, strict, { lookup, timeoutMs: 200 });

    expect(result).toMatchObject({ ok: false, status: 0, error: 'timeout' });
  });

  it('reports a header value the HTTP layer refuses instead of throwing', async () => {
    const result = await post(`${receiver.url}/`, '{}', { 'X-Bad': 'a\r\nInjected: 1' }, local);

    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^request: /);
    expect(receiver.requests).toHaveLength(0);
  });

  describe('pinning the connection to the checked answer', () => {
    it('connects to the address the lookup gave while keeping the hostname in Host', async () => {
      // Prepare
      const lookup = answering('127.0.0.1');

      // Act
      const result = await post(`http://hook.test:${receiver.port}/pinned`, '{}', {}, local, { lookup });

      // Assess
      expect(result).toMatchObject({ ok: true, status: 200 });
      expect(lookup).toHaveBeenCalledTimes(1);
      expect(lookup).toHaveBeenCalledWith('hook.test');
      expect(receiver.requests[0]?.headers.host).toBe(`hook.test:${receiver.port}`);
      expect(receiver.requests[0]?.path).toBe('/pinned');
    });

    it('resolves once per attempt and uses that answer, not a later one', async (ctx) => {
      // Prepare: the same port on two loopback addresses; DNS answers 127.0.0.1, then 127.0.0.2.
      const first = await startHttpReceiver({ host: '127.0.0.1' });
      const second = await startHttpReceiver({ host: '127.0.0.2', port: first.port }).catch(() => undefined);
      if (!second) {
        await first.close();
        ctx.skip('this machine cannot listen on 127.0.0.2 with the same port');
        return;
      }
      const lookup = rebinding('127.0.0.1', '127.0.0.2');

      try {
        // Act
        const attempt1 = await post(`http://hook.test:${first.port}/`, '1', {}, local, { lookup });
        const afterFirst = { first: first.requests.length, second: second.requests.length };
        const attempt2 = await post(`http://hook.test:${first.port}/`, '2', {}, local, { lookup });

        // Assess
        expect(attempt1.ok && attempt2.ok).toBe(true);
        expect(afterFirst).toEqual({ first: 1, second: 0 });
        expect(first.requests.map((r) => r.body.toString())).toEqual(['1']);
        expect(second.requests.map((r) => r.body.toString())).toEqual(['2']);
        expect(second.requests[0]?.localAddress).toBe('127.0.0.2');
        expect(lookup).toHaveBeenCalledTimes(2);
      } finally {
        await Promise.all([first.close(), second.close()]);
      }
    });

    it('never dials a rebound private answer after a public one was checked', async () => {
      // Prepare: every client socket (TLS ones too) reports where it is about to connect and is
      // stopped right there, so nothing leaves the machine.
      const dialled: string[] = [];
      const connect = Socket.prototype.connect;
      const spy = vi.spyOn(Socket.prototype, 'connect').mockImplementation(function (this: Socket, ...args: unknown[]) {
        this.once('lookup', (_error: Error | null, address: string) => {
          dialled.push(address);
          this.destroy();
        });
        return (connect as (...a: unknown[]) => Socket).apply(this, args);
      });
      const lookup = rebinding(PUBLIC_V4, '127.0.0.1');

      try {
        // Act
        const result = await post(`https://rebind.example:${receiver.port}/`, '{}', {}, strict, { lookup, timeoutMs: 2000 });

        // Assess
        expect(dialled).toEqual([PUBLIC_V4]);
        expect(lookup).toHaveBeenCalledTimes(1);
        expect(result).toMatchObject({ ok: false, status: 0 });
        expect(result.error).toMatch(/^connection: /);
        expect(receiver.requests).toHaveLength(0);
      } finally {
        spy.mockRestore();
      }
    });
  });

  const identity = selfSignedCert({ dns: ['hook.test'] });

  describe.skipIf(!identity)('https with a self-signed certificate for hook.test', () => {
    let secure: Receiver;

    beforeAll(async () => {
      secure = await startHttpsReceiver(identity!);
    });
    afterAll(async () => secure.close());
    beforeEach(() => {
      secure.requests.length = 0;
    });

    it('connects to the pinned address with SNI and Host set to the hostname', async () => {
      // Prepare
      const lookup = answering('127.0.0.1');

      // Act
      const result = await post(`https://hook.test:${secure.port}/tls`, '{"tls":true}', {}, local, { lookup, ca: identity!.cert });

      // Assess
      expect(result).toMatchObject({ ok: true, status: 200 });
      expect(secure.requests[0]?.servername).toBe('hook.test');
      expect(secure.requests[0]?.headers.host).toBe(`hook.test:${secure.port}`);
      expect(secure.requests[0]?.body.toString()).toBe('{"tls":true}');
    });

    it('refuses a certificate it does not trust', async () => {
      const result = await post(`https://hook.test:${secure.port}/`, '{}', {}, local, { lookup: answering('127.0.0.1') });

      expect(result).toMatchObject({ ok: false, status: 0 });
      expect(result.error).toMatch(/^tls: .*SELF_SIGNED/);
      expect(secure.requests).toHaveLength(0);
    });

    it('validates the certificate against the hostname, not the pinned address', async () => {
      const result = await post(`https://other.test:${secure.port}/`, '{}', {}, local, { lookup: answering('127.0.0.1'), ca: identity!.cert });

      expect(result).toMatchObject({ ok: false, status: 0, error: 'tls: ERR_TLS_CERT_ALTNAME_INVALID' });
      expect(secure.requests).toHaveLength(0);
    });
  });
});

describe('request (an answer that is read)', () => {
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startHttpReceiver();
  });
  afterAll(async () => receiver.close());
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.reply({});
  });

  it('sends a GET without a body or a length and answers the body as text', async () => {
    receiver.reply({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"login":"octo","name":"Ökø"}' });

    const answer = await new GuardedHttp(local).request(`${receiver.url}/user`, { method: 'GET', headers: { authorization: 'Bearer t' } });

    expect(answer).toMatchObject({ ok: true, status: 200, body: '{"login":"octo","name":"Ökø"}' });
    const [got] = receiver.requests;
    expect(got?.method).toBe('GET');
    expect(got?.headers['content-length']).toBeUndefined();
    expect(got?.headers.authorization).toBe('Bearer t');
  });

  it('answers a non-2xx with its status and body, and a refused URL with an empty body', async () => {
    receiver.reply({ status: 500, body: 'boom' });
    expect(await new GuardedHttp(local).request(`${receiver.url}/token`, { method: 'POST', headers: {}, body: 'a=1' })).toMatchObject({ ok: false, status: 500, body: 'boom' });

    const refused = await new GuardedHttp(strict).request(`${receiver.url}/token`, { method: 'POST', headers: {}, body: 'a=1' });
    expect(refused).toMatchObject({ ok: false, status: 0, body: '' });
    expect(refused.error).toMatch(/^refused: /);
  });

  it('cuts an answer at 64 KiB', async () => {
    receiver.reply({ status: 200, body: Buffer.alloc(100 * 1024, 'a') });
    const answer = await new GuardedHttp(local).request(`${receiver.url}/big`, { method: 'GET', headers: {} });
    expect(answer.body.length).toBe(64 * 1024);
  });
});
