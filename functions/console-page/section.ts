// One part of the console's page: its views' markup (static: every field with its label, no API
// data). Its script is the module of the same name in web/console/sections/, which registers the
// views with the router (`load(arg)` run when a view is shown, `wire()` once at start). `nav` puts
// a view in the signed-in navigation.
export interface Section {
  /** The views' markup, each a `<section data-view="name">` whose heading has tabindex="-1". */
  markup: string;
  /** Signed-in navigation entries: view name → label; `staff` only for staff sessions. */
  nav?: Array<{ view: string; label: string; staff?: boolean }>;
  /** True for the views shown signed out (sign-in, sign-up, …). */
  signedOut?: boolean;
}

/** A view's section with its heading (focus lands on it when the view is shown). */
export const view = (name: string, title: string, body: string): string =>
  `<section data-view="${name}" aria-labelledby="h-${name}" hidden><h2 id="h-${name}" tabindex="-1">${title}</h2>${body}</section>`;

/** A labelled field: the label's `for` names the control's id. */
export const field = (id: string, label: string, control: string): string => `<div class="field"><label for="${id}">${label}</label>${control}</div>`;
