// The dashboard's one stylesheet, served from the api itself (no CDN): plain,
// readable on a phone (one column under 40em), visible focus for the keyboard.
export const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f6f7f9}
a{color:#0b57d0}
.skip{position:absolute;left:-999px}.skip:focus{left:1em;top:1em;background:#fff;padding:.5em;z-index:9}
header{display:flex;flex-wrap:wrap;gap:.5em 1.5em;align-items:center;padding:.75em 1em;background:#102a43;color:#fff}
header a{color:#d9e8ff}.brand{font-size:1.1em}
nav ul{display:flex;flex-wrap:wrap;gap:.25em 1em;list-style:none;margin:0;padding:0}
header nav a[aria-current=page]{color:#fff;font-weight:700;text-decoration:underline}
main a[aria-current=page]{font-weight:700;text-decoration:none;color:#1b1f24}
.signout{margin-left:auto;display:flex;gap:.5em;align-items:center}
main{max-width:72em;margin:0 auto;padding:1em}
h1{font-size:1.5em;margin:.5em 0}h2{font-size:1.2em;margin-top:1.5em}
section,form.card{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:1em;margin:1em 0;min-width:0}
.card h2,section h2{margin-top:0}
form.card > button{display:block}
fieldset{min-width:0;border:1px solid #d0d7de;border-radius:4px}
fieldset label{display:flex;gap:.4em;align-items:baseline;font-weight:400;margin-top:.25em;overflow-wrap:anywhere}
label{display:block;font-weight:600;margin-top:.75em}
input,select,textarea{font:inherit;padding:.45em;border:1px solid #8c959f;border-radius:4px;width:100%;max-width:28em}
input[type=checkbox]{width:auto}
button{white-space:nowrap;font:inherit;padding:.45em 1em;border-radius:4px;border:1px solid #0b57d0;background:#0b57d0;color:#fff;cursor:pointer;margin-top:.75em}
button.secondary{background:#fff;color:#0b57d0}button.danger{background:#b42318;border-color:#b42318}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.scroll{overflow-x:auto;position:relative}
table{border-collapse:collapse;width:100%;background:#fff}
caption{text-align:left;font-weight:600;padding:.5em 0}
th,td{text-align:left;padding:.4em .6em;border-bottom:1px solid #d0d7de;vertical-align:top}
td{overflow-wrap:break-word}
td code{overflow-wrap:anywhere}
.notice{background:#e6f4ea;border:1px solid #34a853;padding:.5em 1em;border-radius:4px}
.error{background:#fdecea;border:1px solid #b42318;padding:.5em 1em;border-radius:4px}
.secret{font-family:ui-monospace,monospace;background:#fff8e1;border:1px dashed #b7791f;padding:.5em;overflow-wrap:anywhere}
code,pre{font-family:ui-monospace,monospace;font-size:.9em}pre{white-space:pre-wrap;word-break:break-word;background:#f0f2f5;padding:.5em}
.qr svg{width:14em;height:14em;background:#fff}
.chart svg{width:100%;height:auto;max-height:18em;background:#fff}
.inline{display:inline}
form.decide{display:flex;flex-wrap:wrap;gap:.25em .5em;align-items:end;margin:.25em 0}form.decide label{margin:0;font-weight:400;font-size:.85em;flex-basis:100%}form.decide input{width:9em}form.decide button{margin:0}.row{display:flex;flex-wrap:wrap;gap:1em}
.empty{color:#57606a}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
@media (max-width:40em){header{flex-direction:column;align-items:flex-start}.signout{margin-left:0}th,td{padding:.3em}}
`;
