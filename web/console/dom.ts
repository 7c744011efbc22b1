// The page's building blocks: elements built with text only (the Mail app's helpers: attributes set
// one by one, children appended as nodes or text, never markup), dates in the reader's locale, the
// status line (#status).
export { byId as $, el, say, when } from '../mail/dom';
