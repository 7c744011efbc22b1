// The web console (issue 19): one public, static page at GET /. Everything it shows comes from the
// /v1 API on the same origin, called with the dashboard session's cookie.
import { createHttpHandler } from '../../shared/http/pipeline';
import { consolePage as consolePageFunction } from './definition';
import { consoleHeaders, consolePage } from './page';

export const handler = createHttpHandler(consolePageFunction, {
  'GET /': async () => ({ status: 200, body: consolePage, headers: consoleHeaders }),
});
