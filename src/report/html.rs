//! `report.html`: one self-contained page. Plots are inline SVG, the style sheet is inline,
//! the plots' font (the bundled Noto Sans, the one their layout was measured with) is
//! embedded as a `data:` URL, the one script is the game viewer's (inline, see
//! [`super::viewer`]), and nothing refers to anything outside the file (links are
//! `#section` anchors only). Every user string is escaped. The markup is also
//! well-formed XML (every element closed, only XML's five entities), so any XML parser
//! can check it.

use std::fmt::Write as _;

use super::{
    charts::Rendered,
    doc::{Block, Doc},
    text::html,
};

const STYLE: &str = "
body { margin: 0; color: #222; background: #fff;
  font-family: system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'DejaVu Sans', sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 12px 24px 48px; }
h1 { font-size: 26px; margin: 18px 0 6px; }
h2 { font-size: 20px; margin: 34px 0 8px; padding-top: 8px; border-top: 1px solid #ddd; }
p { line-height: 1.45; max-width: 920px; }
p.lead { font-size: 17px; }
nav { font-size: 14px; margin: 8px 0 16px; }
nav a { margin-right: 14px; color: #0060a0; }
table { border-collapse: collapse; font-size: 13.5px; margin: 10px 0; }
th, td { padding: 4px 9px; border-bottom: 1px solid #e3e3e3; text-align: right; white-space: nowrap; }
th { background: #f4f4f4; font-weight: 600; white-space: normal; vertical-align: bottom; }
td.t { white-space: normal; }
td.t, th.t { text-align: left; }
td.wrap { white-space: normal; min-width: 160px; }
.scroll { overflow-x: auto; }
figure { margin: 22px 0; }
figure svg { max-width: 100%; height: auto; display: block; }
figure svg text { font-family: arena-noto-sans, 'Noto Sans', sans-serif; }
figcaption { color: #555; font-size: 13.5px; max-width: 920px; line-height: 1.4; margin-top: 4px; }
details { margin: 10px 0; }
summary { cursor: pointer; font-weight: 600; }
pre { background: #f6f8fa; border: 1px solid #e3e3e3; padding: 10px 12px; overflow: auto;
  font-size: 12.5px; line-height: 1.35; max-height: 640px; }
footer { color: #777; font-size: 12.5px; margin-top: 36px; }
";

/// The page for `doc`, with `plots` inlined where the document places them.
/// With `refresh_s`, the page reloads itself that often (`arena report --live`).
pub(crate) fn render(doc: &Doc, plots: &[Rendered], refresh_s: Option<u64>) -> String {
    let mut out =
        String::with_capacity(64 * 1024 + plots.iter().map(|p| p.svg.len()).sum::<usize>());
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
    if let Some(s) = refresh_s {
        let _ = writeln!(out, "<meta http-equiv=\"refresh\" content=\"{s}\"/>");
    }
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n");
    let _ = writeln!(out, "<title>{}</title>", html(&doc.title));
    let _ = writeln!(
        out,
        "<style>@font-face {{ font-family: arena-noto-sans; \
         src: url(data:font/ttf;base64,{}) format('truetype'); }}{STYLE}{}</style>\n\
         </head>\n<body>\n<main>",
        base64(ttf_noto_sans::REGULAR),
        super::viewer::STYLE
    );
    let mut nav_done = false;
    for block in &doc.blocks {
        match block {
            Block::Title(t) => {
                let _ = writeln!(out, "<h1>{}</h1>", html(t));
            }
            Block::Heading { id, text } => {
                if !nav_done {
                    nav(&mut out, doc);
                    nav_done = true;
                }
                let _ = writeln!(out, "<h2 id=\"{}\">{}</h2>", html(id), html(text));
            }
            Block::Para(p) => {
                let class = if nav_done { "" } else { " class=\"lead\"" };
                let _ = writeln!(out, "<p{class}>{}</p>", html(p));
            }
            Block::Table(t) => {
                out.push_str("<div class=\"scroll\"><table>\n<thead><tr>");
                for (i, h) in t.head.iter().enumerate() {
                    let class = if i < t.left { " class=\"t\"" } else { "" };
                    // Headers wrap (a wide table fits the page), never before a `%`.
                    let h = h.replace(" %", "\u{a0}%");
                    let _ = write!(out, "<th{class}>{}</th>", html(&h));
                }
                out.push_str("</tr></thead>\n<tbody>\n");
                for row in &t.rows {
                    out.push_str("<tr>");
                    for (i, cell) in row.iter().enumerate() {
                        let class = if i >= t.left {
                            ""
                        } else if cell.len() > 40 {
                            " class=\"t wrap\""
                        } else {
                            " class=\"t\""
                        };
                        let _ = write!(out, "<td{class}>{}</td>", html(cell));
                    }
                    out.push_str("</tr>\n");
                }
                out.push_str("</tbody>\n</table></div>\n");
            }
            Block::Figure(name) => {
                if let Some(p) = plots.iter().find(|p| &p.name == name) {
                    let _ = writeln!(
                        out,
                        "<figure id=\"plot-{}\">\n{}\n<figcaption>{}</figcaption>\n</figure>",
                        html(&p.name),
                        inline_svg(&p.svg),
                        html(&p.caption)
                    );
                }
            }
            Block::Viewer { viewer, note } => {
                out.push_str(&super::viewer::html(viewer, &html(note)));
                out.push('\n');
            }
            Block::File { summary, text, .. } => {
                let _ = writeln!(
                    out,
                    "<details>\n<summary>{}</summary>\n<pre>{}</pre>\n</details>",
                    html(summary),
                    html(text)
                );
            }
        }
    }
    match &doc.numbers {
        None => {
            let _ = writeln!(
                out,
                "<footer>Written by arena {}. Plots as files: plots/*.svg and plots/*.png beside \
                 this page; the numbers: summary.json and standings.csv.</footer>",
                html(env!("CARGO_PKG_VERSION"))
            );
        }
        Some(numbers) => {
            let _ = writeln!(
                out,
                "<footer>Written by arena {}; the numbers: {}.</footer>",
                html(env!("CARGO_PKG_VERSION")),
                html(&numbers.replace('`', ""))
            );
        }
    }
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

fn nav(out: &mut String, doc: &Doc) {
    out.push_str("<nav>");
    for (id, text) in doc.contents() {
        let _ = write!(out, "<a href=\"#{}\">{}</a>", html(id), html(text));
    }
    out.push_str("</nav>\n");
}

/// An SVG document as inline markup: no XML declaration, and no namespace URL (HTML puts
/// `<svg>` in the SVG namespace by itself), so the page has no URL in it at all.
fn inline_svg(svg: &str) -> String {
    let body = match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    };
    body.replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1)
        .replacen(" xmlns='http://www.w3.org/2000/svg'", "", 1)
        .trim_end()
        .to_string()
}

/// Standard base64 with padding (RFC 4648), for the embedded font.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_known_answers() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn inline_svg_drops_the_namespace_url() {
        let svg = "<?xml version=\"1.0\"?>\n<svg width=\"10\" xmlns=\"http://www.w3.org/2000/svg\">\n</svg>\n";
        assert_eq!(inline_svg(svg), "<svg width=\"10\">\n</svg>");
    }
}
