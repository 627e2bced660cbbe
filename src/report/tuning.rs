//! Reading a tuning run's results folder: `tune.json` (at least
//! `{"params":[{"name","min","max","start","value"}, ...]}`) and `trajectory.csv` (header
//! `pairs,<param>,...`, then one row per batch: game pairs played so far and each
//! parameter's value). The verification match is an ordinary tournament folder,
//! `verification/`, read by [`super::load`].

use std::path::Path;

use serde::Deserialize;

use super::ReportError;

/// One tuned parameter.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct Param {
    /// Its name (`table.open_three`, `search.top_k`, ...).
    pub name: String,
    /// Lower end of its range.
    pub min: f64,
    /// Upper end of its range.
    pub max: f64,
    /// Value the tuning started from.
    pub start: f64,
    /// Value the tuning ended with.
    pub value: f64,
}

impl Param {
    /// Where `v` lies in the range: 0 at `min`, 1 at `max`.
    pub fn fraction(&self, v: f64) -> f64 {
        (v - self.min) / (self.max - self.min)
    }
}

/// One epoch of a fit (`fit.json`'s `history`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct LossRow {
    /// Epoch (0: the base table).
    pub epoch: f64,
    /// Mean training loss.
    pub train: f64,
    /// Mean validation loss.
    pub validation: f64,
}

#[derive(Deserialize)]
struct TuneJson {
    params: Vec<Param>,
    #[serde(default)]
    history: Vec<LossRow>,
}

/// A tuning run.
#[derive(Debug)]
pub(crate) struct Tune {
    /// Parameters, as `tune.json` lists them.
    pub params: Vec<Param>,
    /// For each column of `trajectory.csv` after `pairs`: the parameter it holds.
    pub columns: Vec<usize>,
    /// Rows of `trajectory.csv`: game pairs so far, then one value per column.
    pub rows: Vec<(f64, Vec<f64>)>,
    /// Top-level scalar fields of `tune.json` other than `params` (shown as a table).
    pub facts: Vec<(String, String)>,
    /// `tune.json` (or `fit.json`), verbatim.
    pub json_text: String,
    /// The file it came from: `tune.json` or `fit.json`.
    pub json_name: &'static str,
    /// What the trajectory's first column counts: `pairs` (a tune) or `epoch` (a fit).
    pub x: &'static str,
    /// A fit's losses per epoch (empty for a tune).
    pub losses: Vec<LossRow>,
}

impl Tune {
    /// Reads `tune.json` and `trajectory.csv` in `dir`.
    pub fn load(dir: &Path) -> Result<Tune, ReportError> {
        let json_name = if !dir.join("tune.json").exists() && dir.join("fit.json").exists() {
            "fit.json"
        } else {
            "tune.json"
        };
        let json_path = dir.join(json_name);
        let json_text = read(&json_path)?;
        let parsed: TuneJson = serde_json::from_str(&json_text).map_err(|e| {
            ReportError::input(
                format!("{}:{}", json_path.display(), e.line()),
                format!("not a tuning record: {e}"),
            )
        })?;
        for p in &parsed.params {
            if !(p.min.is_finite() && p.max.is_finite() && p.min < p.max) {
                return Err(ReportError::input(
                    &json_path,
                    format!(
                        "parameter `{}`: needs min < max, has min {} and max {}",
                        p.name, p.min, p.max
                    ),
                ));
            }
        }
        let value: serde_json::Value =
            serde_json::from_str(&json_text).expect("tune.json parsed just above");
        let facts = value
            .as_object()
            .map(|o| {
                o.iter()
                    .filter(|(k, _)| k.as_str() != "params" && k.as_str() != "history")
                    .filter_map(|(k, v)| {
                        let text = match v {
                            serde_json::Value::String(s) => s.clone(),
                            serde_json::Value::Number(n) => number_text(k, n),
                            serde_json::Value::Bool(b) => b.to_string(),
                            _ => return None,
                        };
                        Some((k.clone(), text))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let csv_path = dir.join("trajectory.csv");
        let csv = read(&csv_path)?;
        let x = if json_name == "fit.json" {
            "epoch"
        } else {
            "pairs"
        };
        let (columns, rows) =
            parse_trajectory(&csv, &parsed.params, x).map_err(|(line, message)| {
                ReportError::input(format!("{}:{line}", csv_path.display()), message)
            })?;
        Ok(Tune {
            params: parsed.params,
            columns,
            rows,
            facts,
            json_text,
            json_name,
            x,
            losses: parsed.history,
        })
    }
}

/// A number of `tune.json` for people: whole numbers as they are, seconds (`*_s`) to a
/// tenth, other fractions to four decimals without trailing zeros (no float noise such
/// as `95.68240296999998`), and those too small or large for that (a fit's `k` of
/// 3.41e-5) to four significant digits in scientific notation.
fn number_text(key: &str, n: &serde_json::Number) -> String {
    match (n.as_i64(), n.as_u64(), n.as_f64()) {
        (Some(i), _, _) => i.to_string(),
        (_, Some(u), _) => u.to_string(),
        (_, _, Some(f)) if key.ends_with("_s") => format!("{f:.1}"),
        (_, _, Some(f)) if f != 0.0 && !(1e-3..1e12).contains(&f.abs()) => format!("{f:.3e}"),
        (_, _, Some(f)) => {
            let text = format!("{f:.4}");
            let text = text.trim_end_matches('0').trim_end_matches('.');
            text.to_string()
        }
        _ => n.to_string(),
    }
}

fn read(path: &Path) -> Result<String, ReportError> {
    std::fs::read_to_string(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            ReportError::input(
                path,
                "missing: a tuning folder holds tune.json and trajectory.csv",
            )
        } else {
            ReportError::io(path, e)
        }
    })
}

/// Parses `trajectory.csv`; an error names the 1-based line.
#[allow(clippy::type_complexity)]
fn parse_trajectory(
    text: &str,
    params: &[Param],
    x: &str,
) -> Result<(Vec<usize>, Vec<(f64, Vec<f64>)>), (usize, String)> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err((1, format!("empty: needs the header `{x},<param>,...`")));
    };
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    if names.first() != Some(&x) {
        return Err((
            1,
            format!(
                "the header starts with `{}`, not `{x}`",
                names.first().unwrap_or(&"")
            ),
        ));
    }
    let columns = names[1..]
        .iter()
        .map(|name| {
            params.iter().position(|p| p.name == *name).ok_or_else(|| {
                (
                    1,
                    format!("column `{name}` is not a parameter listed in tune.json"),
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut rows = Vec::new();
    for (i, line) in lines {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() != names.len() {
            return Err((
                i + 1,
                format!(
                    "{} values, the header has {} columns",
                    cells.len(),
                    names.len()
                ),
            ));
        }
        let mut values = Vec::with_capacity(cells.len());
        for (cell, name) in cells.iter().zip(&names) {
            let v: f64 = cell
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| (i + 1, format!("column `{name}`: `{cell}` is not a number")))?;
            values.push(v);
        }
        let pairs = values.remove(0);
        rows.push((pairs, values));
    }
    Ok((columns, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Vec<Param> {
        ["a", "b"]
            .iter()
            .map(|n| Param {
                name: n.to_string(),
                min: 0.0,
                max: 10.0,
                start: 5.0,
                value: 6.0,
            })
            .collect()
    }

    #[test]
    fn parses_a_trajectory() {
        let (cols, rows) =
            parse_trajectory("pairs,b,a\n0,1,2\n8,3.5,4\n", &params(), "pairs").unwrap();
        assert_eq!(cols, vec![1, 0]);
        assert_eq!(rows, vec![(0.0, vec![1.0, 2.0]), (8.0, vec![3.5, 4.0])]);
        assert_eq!(params()[0].fraction(2.5), 0.25);
    }

    #[test]
    fn numbers_have_no_float_noise() {
        let n = |v: serde_json::Value| match v {
            serde_json::Value::Number(n) => n,
            _ => unreachable!("numbers only"),
        };
        assert_eq!(
            number_text("elapsed_s", &n(95.68240296999998.into())),
            "95.7"
        );
        assert_eq!(number_text("pairs_per_s", &n(2.5.into())), "2.5");
        assert_eq!(number_text("c_end", &n(0.123456789.into())), "0.1235");
        assert_eq!(number_text("value", &n(1.5.into())), "1.5");
        assert_eq!(number_text("pairs_done", &n(240.into())), "240");
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse_trajectory("pairs,a\n0,1\n8,x\n", &params(), "pairs").unwrap_err();
        assert_eq!(e.0, 3);
        assert!(e.1.contains("`x` is not a number"), "{}", e.1);
        let e = parse_trajectory("pairs,zz\n", &params(), "pairs").unwrap_err();
        assert_eq!(e.0, 1);
        assert!(e.1.contains("`zz`"), "{}", e.1);
        let e = parse_trajectory("pairs,a\n0,1,2\n", &params(), "pairs").unwrap_err();
        assert_eq!(e.0, 2);
        let e = parse_trajectory("games,a\n", &params(), "pairs").unwrap_err();
        assert_eq!(e.0, 1);
    }
}
