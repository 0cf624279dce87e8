// The OAuth pages' look: the dashboard's colours, type, card and buttons (web/src/app.css and the sign-in
// pages' layout, web/src/routes/(auth)/+layout.svelte), light and dark, so the consent page reads as
// Slipway's own. These pages run no script and load nothing else: the rules travel inline.
export const STYLE = `
:root {
  --bg: #f6f7f9; --surface: #ffffff; --surface-sunken: #eef0f3; --text: #1c2430; --muted: #5b6574;
  --border: #e1e5ea; --border-strong: #808a99; --accent: #2f6fb0; --accent-strong: #1f4f80; --on-accent: #ffffff;
  --focus: #3b7cc4; --warning-strong: #7c5208; --warning-soft: #fdf4e2; --warning: #c98a1b; --danger: #b3372f;
  --danger-soft: #fbe9e7; --success: #2f8a5b; --radius: 8px; --shadow: 0 4px 16px rgb(20 30 45 / 0.08);
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #14181e; --surface: #1b2028; --surface-sunken: #252b35; --text: #e6e9ee; --muted: #a2abb8;
    --border: #2c333e; --border-strong: #6b7686; --accent: #5d9be0; --accent-strong: #9cc4f0; --on-accent: #0d1a2a;
    --focus: #7fb0e8; --warning-strong: #f0cd86; --warning-soft: #3a2f18; --warning: #e0a73c; --danger: #ec7a70;
    --danger-soft: #3b2020; --success: #4fb784; --shadow: 0 4px 16px rgb(0 0 0 / 0.35);
  }
}
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; background: var(--bg); color: var(--text); }
main { max-width: 30rem; margin: 0 auto; padding: 3rem 1rem; }
.brand { display: block; margin: 0 0 1.5rem; text-align: center; font-size: 1.375rem; font-weight: 700; color: var(--text); text-decoration: none; }
.card { background: var(--surface); border: 1px solid var(--border); border-radius: calc(var(--radius) * 1.5); padding: 2rem; box-shadow: var(--shadow); overflow-wrap: anywhere; }
@media (max-width: 40rem) { main { padding: 1.5rem 0.75rem; } .card { padding: 1.25rem; } }
h1 { font-size: 1.375rem; line-height: 1.3; margin: 0 0 0.75rem; }
h2 { font-size: 1rem; margin: 1.25rem 0 0.5rem; }
p { margin: 0 0 0.75rem; }
a { color: var(--accent-strong); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
ul { margin: 0 0 1rem; padding-left: 1.25rem; }
li { margin: 0.25rem 0; }
.muted, .details { color: var(--muted); font-size: 0.875rem; }
.app { display: flex; gap: 1rem; align-items: center; margin-bottom: 1rem; }
.logo { width: 3.5rem; height: 3.5rem; border-radius: var(--radius); object-fit: cover; flex: none; background: var(--surface-sunken); }
.monogram { display: grid; place-items: center; font-weight: 700; font-size: 1.5rem; color: var(--accent-strong); border: 1px solid var(--border); }
.facts { margin: 0 0 1rem; padding: 0.75rem 1rem; list-style: none; border: 1px solid var(--border); border-radius: var(--radius); background: var(--surface-sunken); font-size: 0.9375rem; }
.facts li { margin: 0.2rem 0; }
.scopes li::marker { color: var(--success); }
.warning { background: var(--warning-soft); border: 1px solid var(--warning); color: var(--text); border-radius: var(--radius); padding: 0.75rem; }
.error { background: var(--danger-soft); border: 1px solid var(--danger); color: var(--text); border-radius: var(--radius); padding: 0.75rem; }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; margin: 1.25rem 0 1rem; }
.actions button { flex: 1 1 8rem; }
button { font: inherit; cursor: pointer; padding: 0.6rem 1rem; border-radius: var(--radius); border: 1px solid var(--accent); background: var(--accent); color: var(--on-accent); font-weight: 600; }
button:hover { filter: brightness(0.92); }
button.secondary { background: transparent; color: var(--text); border-color: var(--border-strong); font-weight: 500; }
button.secondary:hover { filter: none; background: var(--surface-sunken); }
button.link { padding: 0; border: 0; background: none; color: var(--accent-strong); text-decoration: underline; font-weight: 400; }
.account { display: flex; flex-wrap: wrap; gap: 0.25rem 0.5rem; align-items: baseline; padding-top: 1rem; border-top: 1px solid var(--border); }
.account form { display: inline; }
label { display: block; font-weight: 600; margin-bottom: 0.35rem; }
input[type=text] { font: 1.375rem ui-monospace, monospace; letter-spacing: 0.15em; text-transform: uppercase; width: 100%; padding: 0.5rem 0.75rem; border: 1px solid var(--border-strong); border-radius: var(--radius); background: var(--surface); color: var(--text); }
`;
