// The console's style sheet (inline, allowed by its hash). Contrast (WCAG, on their backgrounds):
// body text #1d2330 on #fff 15.7:1; links and buttons #1f4fa3 / white on #1f4fa3 7.8:1; hints
// #4b5563 on #fff 7.6:1; header text #fff on #1d2330 15.7:1; error #8b1a1a on #fde8e8 7.9:1;
// danger buttons white on #b42318 6.6:1; sandbox badge #6b4400 on #fff4d6 7.8:1; live badge
// #14532d on #e6f4ea 8.0:1; the focus ring #c2410c is 5.2:1 on #fff. Under 720px the navigation
// folds behind a button and tables scroll in their own region.
export const style = String.raw`
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: #1d2330; background: #fff; overflow-wrap: anywhere; }
a { color: #1f4fa3; }
button, input, select, textarea { font: inherit; color: inherit; }
button, a.button { display: inline-block; background: #1f4fa3; color: #fff; border: 1px solid #1f4fa3; border-radius: 4px; padding: 4px 10px; cursor: pointer; text-decoration: none; }
button, a.button { white-space: nowrap; overflow-wrap: normal; }
button.danger { background: #b42318; border-color: #b42318; }
input, select, textarea { border: 1px solid #6b7280; border-radius: 4px; padding: 4px 6px; max-width: 100%; background: #fff; }
textarea { width: 100%; font-family: ui-monospace, monospace; font-size: 13px; }
:focus-visible { outline: 3px solid #c2410c; outline-offset: 2px; }
h2:focus, h3:focus { outline: none; }
h2:focus-visible, h3:focus-visible { outline: 3px solid #c2410c; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px; z-index: 2; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.hint { color: #4b5563; font-size: 13px; }
#status { margin: 0; padding: 4px 12px; min-height: 1.5em; }
#status.error, #suspended { background: #fde8e8; color: #8b1a1a; }
#suspended { margin: 0; padding: 8px 12px; font-weight: 700; }
#signed-out { max-width: 440px; margin: 6vh auto; padding: 16px; }
#signed-out h1 { font-size: 24px; }
.field { display: flex; flex-direction: column; gap: 2px; margin: 0 0 8px; }
form.inline { display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-end; margin: 8px 0; }
form.inline .field { margin: 0; }
fieldset { border: 1px solid #d1d5db; border-radius: 4px; margin: 8px 0; }
.check { display: inline-flex; gap: 4px; margin: 2px 12px 2px 0; align-items: center; }
header.bar { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; padding: 8px 12px; background: #1d2330; color: #fff; }
header.bar h1 { font-size: 18px; margin: 0 auto 0 0; }
header.bar a { color: #fff; }
#who { font-size: 13px; }
#nav-toggle { display: none; }
#shell { display: grid; grid-template-columns: 200px minmax(0, 1fr); }
nav { border-right: 1px solid #d1d5db; padding: 8px; }
nav ul { list-style: none; margin: 0; padding: 0; }
nav a { display: block; padding: 6px 8px; border-radius: 4px; text-decoration: none; }
nav a[aria-current="page"] { background: #e8eefc; color: #1d2330; font-weight: 600; }
main { padding: 8px 16px 32px; min-width: 0; }
.scroll { overflow-x: auto; max-width: 100%; margin: 8px 0; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { text-align: left; border-bottom: 1px solid #e5e7eb; padding: 4px 6px; vertical-align: top; }
td code { word-break: break-all; }
.actions { display: inline-flex; flex-wrap: wrap; gap: 4px; }
.secret { border: 2px solid #8a5a00; background: #fff4d6; color: #1d2330; padding: 8px; border-radius: 6px; margin: 8px 0; }
.secret code { word-break: break-all; }
.badge { padding: 6px 10px; border-radius: 4px; }
.badge.warn { background: #fff4d6; color: #6b4400; }
.badge.ok { background: #e6f4ea; color: #14532d; }
.steps li.done { color: #14532d; }
.steps li.next { font-weight: 700; }
.timeline li { margin: 4px 0; }
.split { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; }
.preview iframe { width: 100%; height: 420px; border: 1px solid #d1d5db; background: #fff; }
.cards { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 8px; }
.cards li { border: 1px solid #d1d5db; border-radius: 6px; padding: 8px; }
.chart { width: 100%; max-width: 720px; height: auto; }
.legend { list-style: none; padding: 0; display: flex; gap: 12px; flex-wrap: wrap; }
.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 4px; }
.swatch-email { background: #1f4fa3; } .swatch-sms { background: #8a5a00; } .swatch-push { background: #0f766e; }
.swatch-voice { background: #9d174d; } .swatch-webhook { background: #5b21b6; }
.oauth .button { margin: 0 4px; }
@media (max-width: 720px) {
  #nav-toggle { display: inline-block; }
  #shell { grid-template-columns: minmax(0, 1fr); }
  nav { border-right: 0; border-bottom: 1px solid #d1d5db; }
  #nav-list { display: none; }
  #nav-list.open { display: block; }
  .split { grid-template-columns: minmax(0, 1fr); }
}
`;
