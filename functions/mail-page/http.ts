// The Mail app's web page (issue 17): one public, static page. Everything it shows comes from the
// Mail API on the same origin, called with the key the person signs in with.
import { createHttpHandler } from '../../shared/http/pipeline';
import { mailPage as mailPageFunction } from './definition';
import { mailPage, pageHeaders } from './page';

export const handler = createHttpHandler(mailPageFunction, {
  'GET /mail': async () => ({ status: 200, body: mailPage, headers: pageHeaders }),
});
