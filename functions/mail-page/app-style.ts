// The Mail app's style sheet (inline in GET /mail): two columns on a wide screen, one under 700px;
// visible focus everywhere; text colours at 4.5:1 or more on their backgrounds.
export const appStyle = String.raw`
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: #1d2330; background: #fff; overflow-wrap: anywhere; }
button, input, select, textarea { font: inherit; color: inherit; }
button { background: #1f4fa3; color: #fff; border: 1px solid #1f4fa3; border-radius: 4px; padding: 4px 10px; cursor: pointer; }
button[aria-pressed="true"] { background: #8a5a00; border-color: #8a5a00; }
input, select, textarea { border: 1px solid #6b7280; border-radius: 4px; padding: 4px 6px; max-width: 100%; background: #fff; }
textarea { width: 100%; }
:focus-visible { outline: 3px solid #c2410c; outline-offset: 2px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px; z-index: 2; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.hint { color: #4b5563; font-size: 13px; }
#status { margin: 0; padding: 4px 12px; min-height: 1.5em; color: #1d2330; }
#status.error { background: #fde8e8; color: #8b1a1a; }
#signin { max-width: 420px; margin: 10vh auto; padding: 16px; }
#signin label, #signin input { display: block; width: 100%; margin-bottom: 8px; }
#app { display: grid; grid-template-columns: 220px minmax(0, 1fr); grid-template-areas: "header header" "nav main"; }
header { grid-area: header; display: flex; flex-wrap: wrap; gap: 8px; align-items: center; padding: 8px 12px; border-bottom: 1px solid #d1d5db; }
header h1 { font-size: 20px; margin: 0 12px 0 0; }
#search-form { display: flex; gap: 4px; flex: 1 1 260px; min-width: 0; }
#search { flex: 1; min-width: 0; }
nav { grid-area: nav; padding: 8px 12px; border-right: 1px solid #d1d5db; min-width: 0; }
nav ul { list-style: none; margin: 0 0 8px; padding: 0; }
nav li button { background: none; color: #1d2330; border-color: transparent; width: 100%; text-align: left; }
nav li button[aria-current="true"] { background: #e8eefc; border-color: #1f4fa3; font-weight: 600; }
nav h2 { font-size: 14px; margin: 12px 0 4px; }
#label-form label, #label-form input, nav > label, #inbox-filter { display: block; margin: 2px 0; }
#inbox-filter { width: 100%; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 6px; border: 1px solid #6b7280; }
main { grid-area: main; padding: 8px 12px; min-width: 0; }
#threads { list-style: none; margin: 0; padding: 0; }
#threads li { border-bottom: 1px solid #e5e7eb; }
#threads li button { display: block; width: 100%; text-align: left; background: #fff; color: #1d2330; border: 2px solid transparent; border-radius: 0; padding: 6px 8px; }
#threads li.selected button { border-color: #1f4fa3; background: #f1f5ff; }
#threads li.unread .subject { font-weight: 700; }
#threads .meta, .message .meta { color: #4b5563; font-size: 13px; }
#threads .snippet { color: #374151; display: block; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.chip { display: inline-block; font-size: 12px; padding: 0 6px; border-radius: 8px; background: #eef0f3; margin-right: 4px; }
#thread { border-top: 2px solid #d1d5db; margin-top: 12px; padding-top: 8px; }
#thread-labels { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 4px; }
#thread-labels button { padding: 0 6px; font-size: 12px; }
.toolbar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.message { border: 1px solid #e5e7eb; border-radius: 6px; padding: 8px; margin: 8px 0; }
.message pre { white-space: pre-wrap; font: inherit; margin: 8px 0 0; }
.message iframe { width: 100%; height: 320px; border: 1px solid #d1d5db; resize: vertical; background: #fff; }
#compose form, #reply-form, #forward-form { display: grid; gap: 4px; margin-top: 12px; max-width: 720px; }
@media (max-width: 700px) {
  #app { grid-template-columns: minmax(0, 1fr); grid-template-areas: "header" "nav" "main"; }
  nav { border-right: 0; border-bottom: 1px solid #d1d5db; }
  #folders { display: flex; flex-wrap: wrap; gap: 4px; }
  #folders li button { width: auto; }
}
`;
