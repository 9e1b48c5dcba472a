//! The style sheet every pass picture carries inside its own `<svg>`, so an exported
//! file looks the same as on the page in the light theme (fixed light colours; the page's
//! dark theme recolours them in static/style.css). No text is under 11 px: pictures are
//! drawn at 100% or more.

pub const SVG_STYLE: &str = "\
text{font-family:system-ui,'Noto Sans',sans-serif;font-size:12px;fill:#1b1f24}\
.bg{fill:#ffffff}\
.head{font-size:13px;font-weight:600}\
.small{font-size:11px;fill:#4a535d}\
.label{font-size:12px;font-weight:600}\
.code{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:11px}\
.box{stroke-width:1.5}\
.src{fill:#e3ecf8;stroke:#1d4f91}\
.pseudo{fill:#fff1dd;stroke:#7a3e00}\
.gone{fill:#f0f2f5;stroke:#8a939d;stroke-dasharray:4 3}\
.copy{fill:#d7f5df;stroke:#1f8a44}\
.todo{fill:#ffffff;stroke:#b8c0c9;stroke-dasharray:3 3}\
.edge{fill:none;stroke-width:1.5}\
.edge.done{stroke:#1f8a44}\
.edge.todo{stroke:#b8c0c9;stroke-dasharray:3 3}\
.edge.current{stroke:#c2410c;stroke-width:3}\
.bit{fill:#ffffff;stroke:#8a939d}\
.bit.on{fill:#1d4f91;stroke:#1d4f91}\
.bit-text{font-size:11px;font-weight:700;fill:#56606b}\
.bit.on+.bit-text{fill:#ffffff}\
.tie{font-size:11px;font-weight:700;fill:#7b2fbf}\
.kill{fill:#b42318}\
.kill-text{font-size:11px;font-weight:700;fill:#ffffff}\
.cell{stroke:#b8c0c9;fill:#ffffff}\
.cell.changed{fill:#fdf0c4;stroke:#a86500}\
.cell.converged{fill:#d7f5df;stroke:#1f8a44}\
.cell.capped{fill:#fde0e0;stroke:#b42318}\
.cell.latest{stroke:#c2410c;stroke-width:3}\
.zero{fill:#8a939d}\
.axis{stroke:#56606b;stroke-width:1}\
.threshold{stroke:#b42318;stroke-dasharray:5 3;stroke-width:1.5}\
.curve{fill:none;stroke:#1d4f91;stroke-width:2}\
.dot{fill:#1d4f91}\
.bar{fill:#9ec1ea}\
.bar.under{fill:#f3b2ab}\
.slot{fill:#ffffff;stroke:#8a939d}\
.slot.full{fill:#e3ecf8;stroke:#1d4f91}\
.slot.pair{fill:#d7f5df;stroke:#1f8a44}\
.pointer{fill:#c2410c}\
.mark{fill:#e1f0fb;stroke:#0b6a9a}\
";
