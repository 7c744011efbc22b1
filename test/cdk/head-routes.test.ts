// HEAD works where GET does: a path one function serves is one ANY route, and a GET route of a
// path functions share has a HEAD twin on the same integration. And every function behind the API learns the
// public origin its links are built on (PUBLIC_BASE_URL), from the stack, never from a request.
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { functions, httpRoutes } from '../../functions/manifest';
import { AppStack } from '../../lib/app-stack';
import { envNames } from '../../shared/runtime/env-names';
import { testApp } from '../support/cdk';

type Resource = { Type: string; Properties: Record<string, any> };

function synth(context: Record<string, string> = {}): { stack: AppStack; resources: Record<string, Resource> } {
  const app = testApp();
  for (const [k, v] of Object.entries(context)) app.node.setContext(k, v);
  const stack = new AppStack(app, 'Postbox-head', { stage: 'test' });
  return { stack, resources: Template.fromStack(stack).toJSON().Resources as Record<string, Resource> };
}

const { stack, resources } = synth();
const routes = Object.values(resources).filter((r) => r.Type === 'AWS::ApiGatewayV2::Route');
const targetOf = (key: string): unknown => routes.find((r) => r.Properties.RouteKey === key)?.Properties.Target;
const envOf = (res: Record<string, Resource>, name: string): Record<string, unknown> => {
  const fn = stack.functions.get(name)!.fn;
  const id = stack.getLogicalId(fn.node.defaultChild as never);
  return res[id]!.Properties.Environment.Variables;
};

describe('HEAD routes', () => {
  /** The route a request with this method and path takes: its own, or the path's ANY route. */
  const routeFor = (method: string, path: string): unknown => targetOf(`${method} ${path}`) ?? targetOf(`ANY ${path}`);

  it('include HEAD /v1/keys on the keys integration, like GET /v1/keys', () => {
    expect(routeFor('HEAD', '/v1/keys')).toBeDefined();
    expect(routeFor('HEAD', '/v1/keys')).toEqual(routeFor('GET', '/v1/keys'));
  });

  it.each(httpRoutes().filter((r) => r.method === 'GET').map((r) => [r.path]))('route HEAD %s to the integration GET takes', (path) => {
    expect(routeFor('HEAD', path)).toBeDefined();
    expect(routeFor('HEAD', path)).toEqual(routeFor('GET', path));
  });

  it('exist only beside GET routes', () => {
    const heads = routes.map((r) => r.Properties.RouteKey as string).filter((k) => k.startsWith('HEAD '));
    const gets = new Set(httpRoutes().filter((r) => r.method === 'GET').map((r) => `HEAD ${r.path}`));
    for (const head of heads) expect(gets.has(head), head).toBe(true);
  });
});

describe('PUBLIC_BASE_URL', () => {
  const routed = functions.filter((f) => (f.http?.length ?? 0) > 0 || f.defaultRoute);
  const consumers = functions.filter((f) => !f.http?.length && !f.defaultRoute);

  it.each(routed.map((f) => [f.name]))('is the API endpoint on %s by default', (name) => {
    // The API's ApiEndpoint (https://{id}.execute-api.{region}.amazonaws.com): the stage URL without its trailing slash.
    expect(envOf(resources, name)[envNames.publicBaseUrl]).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^ApiHttpApi[0-9A-F]+$/), 'ApiEndpoint'] });
  });

  it('is the configured origin when the publicBaseUrl context is set, without a trailing slash', () => {
    const custom = synth({ publicBaseUrl: 'https://mail.example.com/' });
    for (const f of routed) expect(envOf(custom.resources, f.name)[envNames.publicBaseUrl]).toBe('https://mail.example.com');
  });

  it('refuses a context value that is not an https URL', () => {
    expect(() => synth({ publicBaseUrl: 'http://mail.example.com' })).toThrow(/publicBaseUrl must be an https:\/\/ URL/);
    expect(() => synth({ publicBaseUrl: 'https://mail.example.com/?x=1' })).toThrow(/publicBaseUrl/);
  });

  it('is not given to queue consumers that build no links', () => {
    const linkless = consumers.filter((f) => !f.needs.links);
    expect(linkless.length).toBeGreaterThan(0);
    for (const f of linkless) expect(envOf(resources, f.name)).not.toHaveProperty(envNames.publicBaseUrl);
  });

  it('is given to the consumers that mail links (needs.links), the configured origin included', () => {
    const linking = consumers.filter((f) => f.needs.links).map((f) => f.name);
    expect(linking).toEqual(['send-worker']);
    const custom = synth({ publicBaseUrl: 'https://mail.example.com' });
    for (const name of linking) {
      expect(envOf(resources, name)[envNames.publicBaseUrl]).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^ApiHttpApi[0-9A-F]+$/), 'ApiEndpoint'] });
      expect(envOf(custom.resources, name)[envNames.publicBaseUrl]).toBe('https://mail.example.com');
    }
  });
});
