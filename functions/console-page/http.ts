// The web console (issue 19): one public, static page at GET /. Everything it shows comes from the
// /v1 API on the same origin, called with the dashboard session's cookie.
import { createHttpHandler } from '../../shared/http/pipeline';
import { functionNamed } from '../manifest';
import { consoleHeaders, consolePage } from './page';

export const handler = createHttpHandler(functionNamed('console-page'), {
  'GET /': async () => ({ status: 200, body: consolePage, headers: consoleHeaders }),
});
