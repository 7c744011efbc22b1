// The rehearsal's internet, inside one Lambda execution environment (plain JavaScript, loaded by
// lambda-environment.mjs before the function's bundle). Offline there is no internet, so the
// rehearsal plays the few public hosts a flow needs (a customer's webhook endpoint, say): each is a
// public address and port, e.g. 93.184.216.34:443, served by a server on loopback in the rehearsal's
// process, and a certificate authority the isolate trusts, as Lambda's trust store holds the public
// CAs that sign a real endpoint's certificate.
//
// Why this is faithful: the hook sits at the TCP layer (net.Socket#connect) and at the trust store
// (tls.connect's `ca` when the caller names none), below everything the product runs. The
// product's guarded HTTP (shared/adapters/guarded-http.ts) runs unchanged with the template's
// environment (no WEBHOOK_ALLOW_PRIVATE): it checks the URL, insists on https, classifies the
// public address and refuses private ones, and hands node a connection to that public address.
// Only then, when node opens the TCP connection, is a connection to a played public host carried
// to its loopback server, as the internet's routers would carry it to the host. TLS still verifies
// the server's certificate against the address the product asked for (the connection options it
// checks keep that address), so a certificate for another name fails as it would in AWS. A
// connection to a public address the rehearsal does not play fails (EHOSTUNREACH) instead of
// leaving the machine: the rehearsal stays offline. Played hosts are IP literals: a host name
// would first go through the guard's own DNS lookup, which the rehearsal does not play (offline it
// fails, and the guard reports it as a DNS failure).
import net from 'node:net';
import tls from 'node:tls';

const isLoopback = (address) => address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');

/** The options object of a Socket#connect call (object form, or net's normalized array form), or undefined (port/path forms). */
function optionsOf(args) {
  const first = args[0];
  if (Array.isArray(first)) return first[0] && typeof first[0] === 'object' ? first[0] : undefined;
  return first && typeof first === 'object' ? first : undefined;
}

/** The same call with other options; the caller's object is left as it was (TLS reads the address it asked for from it). */
function withOptions(args, options) {
  const copy = [...args];
  if (Array.isArray(copy[0])) copy[0][0] = options;
  else copy[0] = options;
  return copy;
}

/**
 * Installs the played hosts: `hosts` is [{ address, port, to: { host, port } }] (address an IP
 * literal), `ca` the PEM certificates of the authority that signed their certificates.
 */
export function installInternet({ hosts = [], ca = [] }) {
  const played = new Map(hosts.map((h) => [`${h.address}|${h.port}`, h.to]));
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function connectThroughTheRehearsal(...args) {
    const options = optionsOf(args);
    const host = options?.host;
    if (!options || options.path || typeof host !== 'string' || !net.isIP(host) || isLoopback(host)) return connect.apply(this, args);
    const to = played.get(`${host}|${Number(options.port)}`);
    if (to) return connect.apply(this, withOptions(args, { ...options, host: to.host, port: to.port }));
    const error = Object.assign(new Error(`connect EHOSTUNREACH ${host}:${options.port} (the rehearsal plays no host there)`), { code: 'EHOSTUNREACH', address: host, port: options.port });
    process.nextTick(() => this.destroy(error));
    return this;
  };
  if (ca.length === 0) return;
  const trusted = [...tls.rootCertificates, ...ca];
  const tlsConnect = tls.connect;
  tls.connect = function connectTrustingTheRehearsal(...args) {
    const first = args[0];
    if (first && typeof first === 'object' && first.ca === undefined && first.secureContext === undefined) args[0] = { ...first, ca: trusted };
    return tlsConnect.apply(this, args);
  };
}
