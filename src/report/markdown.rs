//! `report.md`: the same blocks as the HTML page in GitHub-flavoured Markdown, plots
//! linked as `plots/*.svg` (relative to the results folder), config files linked rather
//! than copied. Every user string is escaped ([`super::text::md`]).

use std::fmt::Write as _;

use super::{
    charts::Rendered,
    doc::{Block, Doc},
    text::md,
};

/// The Markdown for `doc`, linking `plots`.
pub(crate) fn render(doc: &Doc, plots: &[Rendered]) -> String {
    let mut out = String::new();
    for block in &doc.blocks {
        match block {
            Block::Title(t) => {
                let _ = writeln!(out, "# {}\n", md(t));
            }
            Block::Heading { text, .. } => {
                let _ = writeln!(out, "## {}\n", md(text));
            }
            Block::Para(p) => {
                let _ = writeln!(out, "{}\n", md(p));
            }
            Block::Table(t) => {
                let head: Vec<String> = t.head.iter().map(|h| md(h)).collect();
                let _ = writeln!(out, "| {} |", head.join(" | "));
                let align: Vec<&str> = (0..t.head.len())
                    .map(|i| if i < t.left { ":--" } else { "--:" })
                    .collect();
                let _ = writeln!(out, "| {} |", align.join(" | "));
                for row in &t.rows {
                    let cells: Vec<String> = row.iter().map(|c| md(c)).collect();
                    let _ = writeln!(out, "| {} |", cells.join(" | "));
                }
                out.push('\n');
            }
            Block::Figure(name) => {
                if let Some(p) = plots.iter().find(|p| &p.name == name) {
                    let _ = writeln!(
                        out,
                        "![{}](plots/{}.svg)\n\n*{}* (PNG: [plots/{}.png](plots/{}.png))\n",
                        md(&p.title),
                        p.name,
                        md(&p.caption),
                        p.name,
                        p.name
                    );
                }
            }
            Block::File { summary, link, .. } => {
                let _ = writeln!(out, "{}: [{}]({})\n", md(summary), md(link), link);
            }
            Block::Viewer { viewer, .. } => {
                let _ = writeln!(
                    out,
                    "The game viewer (every move of {} games on a board, with depth, nodes \
                     and score) is in [report.html](report.html).\n",
                    viewer.shown
                );
            }
        }
    }
    let numbers = doc
        .numbers
        .as_deref()
        .unwrap_or("`summary.json`, `standings.csv`");
    let _ = writeln!(
        out,
        "---\nWritten by arena {}; the numbers: {numbers}.",
        env!("CARGO_PKG_VERSION")
    );
    out
}
