// API Gateway's $default route: every path no other route claims, answered in the error envelope.
// It needs no store or secrets, so it builds no container; where it runs (for HSTS) comes from
// RUNTIME, which the stack sets on every function.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ApiError } from '../../shared/errors';
import { answer } from '../../shared/http/respond';
import { createRouteMatcher } from '../../shared/http/route-match';
import { readRuntimeKind } from '../../shared/runtime/config';
import { functions } from '../manifest';

const matchRoute = createRouteMatcher(functions);

export const handler = (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> =>
  answer(event, readRuntimeKind(), async () => {
    const method = event.requestContext.http.method;
    const path = event.rawPath;
    const match = matchRoute(method, path);
    if (match.kind === 'method_not_allowed') {
      throw new ApiError('method_not_allowed', `${method} is not allowed on ${path}; allowed: ${match.allow.join(', ')}`, {
        headers: { allow: match.allow.join(', ') },
      });
    }
    throw new ApiError('not_found', `no route for ${method} ${path}`);
  });
