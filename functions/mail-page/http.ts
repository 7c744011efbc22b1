// The Mail app's web page (issue 17): the page and its two assets, public and static. Everything it
// shows comes from the Mail API on the same origin, called with the key the person signs in with.
import { createHttpHandler } from '../../shared/http/pipeline';
import { functionNamed } from '../manifest';
import { appScript } from './app-script';
import { appStyle } from './app-style';
import { mailPage, pageHeaders } from './page';

const asset = (body: string, contentType: string) => async () => ({ status: 200, body, headers: pageHeaders(contentType) });

export const handler = createHttpHandler(functionNamed('mail-page'), {
  'GET /mail': asset(mailPage, 'text/html'),
  'GET /mail/app.js': asset(appScript, 'text/javascript'),
  'GET /mail/app.css': asset(appStyle, 'text/css'),
});
