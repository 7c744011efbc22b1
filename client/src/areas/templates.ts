// The client's calls of templates and their snippets: each a function of the transport's Requester,
// which client/src/index.ts makes a namespace of Postbox.
import { enc, type Requester } from '../transport';
import type { Body, Ok, PathParams, Query } from '../types';

export const templatesCalls = (request: Requester) => ({
  /** The 20 built-in templates to start from, each with sample variables. */
  gallery: () => request<Ok<'/v1/templates/gallery', 'get'>>({ method: 'GET', path: '/v1/templates/gallery' }),
  /** Version 1 of a new template; 400 invalid_template names the part, line and problem. */
  create: (body: Body<'/v1/templates', 'post'>) => request<Ok<'/v1/templates', 'post'>>({ method: 'POST', path: '/v1/templates', body }),
  list: (query?: Query<'/v1/templates', 'get'>) => request<Ok<'/v1/templates', 'get'>>({ method: 'GET', path: '/v1/templates', query }),
  /** The current version, or `{ version: '2' }` for an earlier one. */
  get: (id: PathParams<'/v1/templates/{id}', 'get'>['id'], query?: Query<'/v1/templates/{id}', 'get'>) =>
    request<Ok<'/v1/templates/{id}', 'get'>>({ method: 'GET', path: `/v1/templates/${enc(id)}`, query }),
  /** A change to subject, bodies or variables answers the new version. */
  update: (id: PathParams<'/v1/templates/{id}', 'put'>['id'], body: Body<'/v1/templates/{id}', 'put'>) =>
    request<Ok<'/v1/templates/{id}', 'put'>>({ method: 'PUT', path: `/v1/templates/${enc(id)}`, body }),
  remove: (id: PathParams<'/v1/templates/{id}', 'delete'>['id']) =>
    request<Ok<'/v1/templates/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/templates/${enc(id)}` }),
  /** Renders the current version with `vars`, as mailed (CSS inlined, a text part); sends nothing. */
  render: (id: PathParams<'/v1/templates/{id}/render', 'post'>['id'], body: Body<'/v1/templates/{id}/render', 'post'>) =>
    request<Ok<'/v1/templates/{id}/render', 'post'>>({ method: 'POST', path: `/v1/templates/${enc(id)}/render`, body }),
  /** Renders a template that is not stored; its problems come back in `warnings` and `errors`, not as an error answer. */
  preview: (body: Body<'/v1/templates/preview', 'post'>) =>
    request<Ok<'/v1/templates/preview', 'post'>>({ method: 'POST', path: '/v1/templates/preview', body }),
  /** Snippets: partials templates include as `{{> name }}`; a rename or delete is 409 while a template includes one. */
  snippets: {
    create: (body: Body<'/v1/templates/snippets', 'post'>) =>
      request<Ok<'/v1/templates/snippets', 'post'>>({ method: 'POST', path: '/v1/templates/snippets', body }),
    list: (query?: Query<'/v1/templates/snippets', 'get'>) =>
      request<Ok<'/v1/templates/snippets', 'get'>>({ method: 'GET', path: '/v1/templates/snippets', query }),
    get: (id: PathParams<'/v1/templates/snippets/{id}', 'get'>['id']) =>
      request<Ok<'/v1/templates/snippets/{id}', 'get'>>({ method: 'GET', path: `/v1/templates/snippets/${enc(id)}` }),
    update: (id: PathParams<'/v1/templates/snippets/{id}', 'patch'>['id'], body: Body<'/v1/templates/snippets/{id}', 'patch'>) =>
      request<Ok<'/v1/templates/snippets/{id}', 'patch'>>({ method: 'PATCH', path: `/v1/templates/snippets/${enc(id)}`, body }),
    remove: (id: PathParams<'/v1/templates/snippets/{id}', 'delete'>['id']) =>
      request<Ok<'/v1/templates/snippets/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/templates/snippets/${enc(id)}` }),
  },
});
