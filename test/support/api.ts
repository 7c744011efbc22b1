// Calls handler exports the way API Gateway does: the manifest picks the function for a route.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { functions } from '../../functions/manifest';
import { createRouteMatcher } from '../../shared/http/route-match';
import { loadFunction } from '../../local/runtime';
import { httpEvent, parseResult, type HttpEventInput, type ParsedResult } from './events';
import { runningAs } from './grants';

const matchRoute = createRouteMatcher(functions);

type Lambda = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

export async function call(input: HttpEventInput): Promise<ParsedResult> {
  return parseResult(await callRaw(input));
}

/** The answer as API Gateway gets it: for bodies that are not JSON (bytes travel base64-encoded). */
export async function callRaw(input: HttpEventInput): Promise<APIGatewayProxyStructuredResultV2> {
  const match = matchRoute(input.method, input.path);
  const fn = match.kind === 'route' ? match.fn : functions.find((f) => f.defaultRoute);
  if (!fn) throw new Error('no fallback function');
  const handler = await loadFunction<Lambda>(fn);
  return runningAs.run(fn, () => handler(httpEvent(input)));
}
