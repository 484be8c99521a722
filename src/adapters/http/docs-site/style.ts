// The docs site's stylesheets: the guides' is the dashboard's (same look,
// served from the api) with a sidebar beside the text, one column on a
// phone; the reference page keeps Swagger UI's own and adds only its header.
import { STYLE } from '../dashboard/style.js';

export const DOCS_STYLE = `${STYLE}
.docs{display:grid;grid-template-columns:16em minmax(0,1fr);gap:1.5em;max-width:84em;margin:0 auto;padding:1em}
.docs main{max-width:none;margin:0;padding:0}
.sidebar{font-size:.95em}
.sidebar ul{display:block;list-style:none;margin:0;padding:0}.sidebar li{margin:.2em 0}
.sidebar h2{font-size:1em;margin:1em 0 .25em;color:#57606a;text-transform:uppercase;letter-spacing:.04em}
.sidebar a[aria-current=page]{font-weight:700;color:#1b1f24;text-decoration:none}
.sidebar .contents{margin-left:.75em;font-size:.9em}
article{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:1em 1.5em;min-width:0}
article h2{border-bottom:1px solid #d0d7de;padding-bottom:.25em;margin-top:2em}
article h2:first-child{margin-top:.5em}
article table{margin:1em 0}
article pre{white-space:pre;overflow-x:auto;word-break:normal}
article blockquote{margin:1em 0;padding:0 1em;border-left:4px solid #d0d7de;color:#57606a}
.guides dt{font-weight:600;margin-top:.75em}.guides dd{margin:.1em 0 0 0;color:#3d444d}
@media (max-width:50em){.docs{grid-template-columns:1fr}}
`;

export const REFERENCE_STYLE = `
body{margin:0}
.reference-header{display:flex;gap:1.5em;align-items:center;padding:.75em 1em;background:#102a43;color:#fff;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.reference-header a{color:#d9e8ff;font-weight:700}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
`;
