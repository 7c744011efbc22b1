// API Gateway's $default route: every path no other route claims, answered in the error envelope.
import { ApiError } from '../../shared/errors';
import { createHttpHandler } from '../../shared/http/pipeline';
import { matchRoute } from '../../shared/http/route-match';

export const handler = createHttpHandler('fallback', {
  $default: async (req) => {
    const match = matchRoute(req.method, req.path);
    if (match.kind === 'method_not_allowed') {
      throw new ApiError('method_not_allowed', `${req.method} is not allowed on ${req.path}; allowed: ${match.allow.join(', ')}`, {
        headers: { allow: match.allow.join(', ') },
      });
    }
    throw new ApiError('not_found', `no route for ${req.method} ${req.path}`);
  },
});
