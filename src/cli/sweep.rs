//! `arena sweep`: the same tournament at each value of one engine setting (`search.depth`,
//! `search.movetime_ms`, a table weight), one results folder per point, and a scaling
//! table of every pairing's Elo against the value.

use std::{
    fmt::Write as _,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result, bail};
use arena::{
    config::parse_assignment,
    files,
    jobs::lock,
    protocol::EngineSpec,
    tournament::{Summary, Tournament},
};
use clap::Args;

use super::{
    long_job::{JobArgs, at_least_one, set_from},
    tournament::{Play, play},
};

/// Play one tournament at each value of an engine setting and tabulate Elo against it.
#[derive(Args, Debug)]
#[command(
    after_help = "Every engine that has the parameter KEY gets KEY = VALUE at each point \
                        (built-in engines: search.*, table.*; outside engines: option.NAME for \
                        an option, and their limits search.depth, search.nodes, \
                        search.movetime_ms, tc); the points share \
                        the config's seed, so they play the same openings in the same order. \
                        Results go to results/<name>-sweep/ (or --out): one folder per point \
                        (KEY=VALUE/, a normal run's folder), and scaling.csv and scaling.md \
                        with every pairing's Elo and 95 % interval at each value, and scaling.svg (the plot).\n\
                        A sweep that was stopped continues with --resume.\n\
                        Example: arena sweep configs/gomoku-tables.toml --over search.depth=2,3,4"
)]
pub struct SweepArgs {
    /// The tournament config (TOML).
    config: PathBuf,
    /// The setting and its values: KEY=V1,V2,... (`search.depth=2,3,4`).
    #[arg(long, value_name = "KEY=V1,V2,...")]
    over: String,
    #[command(flatten)]
    job: JobArgs,
    /// Override the number of game pairs per pairing.
    #[arg(long)]
    rounds: Option<u32>,
    /// Do not write each point's report.
    #[arg(long)]
    no_report: bool,
}

pub fn sweep(args: SweepArgs) -> Result<()> {
    let (key, values) = args
        .over
        .split_once('=')
        .with_context(|| format!("--over: '{}' is not KEY=V1,V2,...", args.over))?;
    let key = key.trim();
    let values: Vec<&str> = values
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .collect();
    if key.is_empty() || values.is_empty() {
        bail!("--over: '{}' is not KEY=V1,V2,...", args.over);
    }
    let base = Tournament::load(&args.config)?;
    let out = args
        .job
        .out
        .clone()
        .unwrap_or_else(|| Path::new("results").join(format!("{}-sweep", base.config.name)));
    // A number whose switch is off in every engine that takes it changes no game.
    let mut takers = 0;
    let mut inert = Vec::new();
    for spec in base.engines.iter().filter(|spec| has_parameter(spec, key)) {
        takers += 1;
        if let EngineSpec::Builtin(e) = spec
            && let Some(why) = e.inert_reason(key)
        {
            inert.push(format!("'{}': {why}", e.name));
        }
    }
    if !inert.is_empty() && inert.len() == takers {
        bail!(
            "--over {key}: changes no move of any engine of {} ({}): turn it on in the \
             engines or in the config's `set`",
            args.config.display(),
            inert.join("; ")
        );
    }
    for why in &inert {
        eprintln!("arena: warning: --over {key}: changes no move of {why}");
    }
    if base.config.pgnout.is_some() || base.config.sgfout.is_some() {
        bail!(
            "{}: pgnout/sgfout: a sweep plays a tournament per point; export each point's \
             folder with `arena export` instead",
            args.config.display()
        );
    }
    // Check every point before playing any.
    let mut points = Vec::new();
    for &v in &values {
        let (_, value) =
            parse_assignment(&format!("{key}={v}")).map_err(|e| anyhow::anyhow!("--over: {e}"))?;
        let mut t = base.clone();
        set_from(&mut t.config.rounds, at_least_one("--rounds", args.rounds)?);
        let mut taken = false;
        for spec in &mut t.engines {
            if !has_parameter(spec, key) {
                continue;
            }
            taken = true;
            let name = spec.name().to_string();
            spec.set_all([(key, value.clone())])
                .map_err(|e| anyhow::anyhow!("--over {key}={v}: engine {name}: {}", e.message))?;
        }
        if !taken {
            bail!(
                "--over: no engine of {} has a parameter {key} (built-in engines: search.*, \
                 table.*; outside engines: option.NAME, {})",
                args.config.display(),
                arena::protocol::external::ExternalEngine::PARAMETERS
            );
        }
        points.push((v.to_string(), t, out.join(point_folder(key, v))));
    }
    // One sweep per folder: a second one (another --over on the same --out) would
    // overwrite the scaling files with points of its own.
    let _lock = lock::lock_exclusive(&out, "arena sweep")?;
    claim_sweep(&out, &base, key, &values, args.job.resume)?;
    let mut summaries = Vec::new();
    for (v, t, dir) in &points {
        // The sweep's own folder: a link there is not followed.
        files::own_folder(dir).with_context(|| format!("--over {key}={v}: {}", dir.display()))?;
        println!("\n== {key} = {v} ({})", dir.display());
        play(
            t,
            Play {
                job: JobArgs {
                    out: Some(dir.clone()),
                    ..args.job.clone()
                },
                no_report: args.no_report,
                shard: None,
                live: Default::default(),
            },
        )?;
        let path = dir.join("summary.json");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let summary: Summary = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a summary", path.display()))?;
        summaries.push((v.clone(), summary));
    }
    let (csv, markdown) = scaling(key, &summaries);
    files::write_atomic(&out.join("scaling.csv"), csv.as_bytes(), true)
        .with_context(|| format!("writing {}", out.join("scaling.csv").display()))?;
    files::write_atomic(&out.join("scaling.md"), markdown.as_bytes(), true)
        .with_context(|| format!("writing {}", out.join("scaling.md").display()))?;
    let svg = arena::report::scaling_plot(key, &series(&summaries))?;
    files::write_atomic(&out.join("scaling.svg"), svg.as_bytes(), true)
        .with_context(|| format!("writing {}", out.join("scaling.svg").display()))?;
    println!("\n{markdown}");
    println!(
        "scaling table in {} and {}, plot in {}",
        out.join("scaling.md").display(),
        out.join("scaling.csv").display(),
        out.join("scaling.svg").display()
    );
    Ok(())
}

/// The folder name of the point `key` = `value` inside the sweep's folder: `KEY=VALUE`,
/// with `/`, `\`, `%`, control characters and a leading dot written as `%XX` (their
/// UTF-8 bytes), so that no value (`../../x`, an option's path) names a folder outside
/// the sweep's or a hidden one, and two values never share a folder.
fn point_folder(key: &str, value: &str) -> String {
    let mut name = String::new();
    for (i, c) in format!("{key}={value}").char_indices() {
        if matches!(c, '/' | '\\' | '%') || c.is_control() || (i == 0 && c == '.') {
            let mut bytes = [0; 4];
            for b in c.encode_utf8(&mut bytes).bytes() {
                name.push_str(&format!("%{b:02X}"));
            }
        } else {
            name.push(c);
        }
    }
    name
}

/// What `sweep.toml` records of a sweep: its config and its `--over`, so that a second
/// sweep into the same folder is refused and a resume is the same sweep.
const SWEEP_FILE: &str = "sweep.toml";

/// Refuses a folder that holds another sweep (or, without `resume`, any sweep), then
/// records this one.
fn claim_sweep(
    out: &Path,
    base: &Tournament,
    key: &str,
    values: &[&str],
    resume: bool,
) -> Result<()> {
    let mut record = toml::Table::new();
    record.insert("config".into(), base.config.name.clone().into());
    record.insert("over".into(), format!("{key}={}", values.join(",")).into());
    let text = toml::to_string(&record).expect("a sweep record serialises");
    let path = out.join(SWEEP_FILE);
    match std::fs::read(&path) {
        Ok(old) if !resume => bail!(
            "{} already holds a sweep ({}): add --resume to continue it, or choose another --out",
            out.display(),
            String::from_utf8_lossy(&old)
                .lines()
                .find(|l| l.starts_with("over"))
                .unwrap_or("")
                .trim()
        ),
        Ok(old) if old != text.as_bytes() => bail!(
            "{}: made by another sweep ({}); --resume continues only the same sweep (the same config and --over)",
            path.display(),
            arena::jobs::folder::first_difference(&String::from_utf8_lossy(&old), &text)
        ),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            files::write_atomic(&path, text.as_bytes(), true)
                .with_context(|| format!("writing {}", path.display()))?;
            Ok(())
        }
        Err(e) => Err(anyhow::Error::new(e).context(format!("reading {}", path.display()))),
    }
}

/// Each pairing's (value, Elo, low, high) for the plot: values that are not numbers are
/// placed by their order.
fn series(summaries: &[(String, Summary)]) -> Vec<arena::report::ScalingSeries> {
    let pairings = summaries.first().map_or(0, |(_, s)| s.pairings.len());
    (0..pairings)
        .map(|i| {
            let label = summaries[0].1.pairings[i].names.join(" vs ");
            let points = summaries
                .iter()
                .enumerate()
                .filter_map(|(k, (v, s))| {
                    let e = s.pairings.get(i)?.estimate?;
                    Some((v.parse().unwrap_or(k as f64), e.elo, e.elo_low, e.elo_high))
                })
                .collect();
            (label, points)
        })
        .collect()
}

/// The scaling table: one row per (pairing, value), as CSV and as Markdown.
fn scaling(key: &str, summaries: &[(String, Summary)]) -> (String, String) {
    let mut csv = format!("pairing,{key},games,elo,elo_low,elo_high,nelo,nelo_error,los\n");
    let mut md = format!(
        "# Elo against {key}\n\nFirst engine's view, 95 % intervals; every point plays the \
         same openings.\n\n| pairing | {key} | games | Elo [95 %] | nElo | LOS |\n|---|---:|---:|---|---|---:|\n"
    );
    let number = |x: f64| {
        if x.is_finite() {
            format!("{x:.1}")
        } else if x.is_nan() {
            // Unknown (nElo from too few pairs): an empty cell, as for no games.
            String::new()
        } else if x > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        }
    };
    let pairings = summaries.first().map_or(0, |(_, s)| s.pairings.len());
    for i in 0..pairings {
        for (v, s) in summaries {
            let Some(p) = s.pairings.get(i) else { continue };
            let label = format!("{} vs {}", p.names[0], p.names[1]);
            let cells = match &p.estimate {
                Some(e) => vec![
                    p.wdl.games().to_string(),
                    number(e.elo),
                    number(e.elo_low),
                    number(e.elo_high),
                    number(e.nelo),
                    number(e.nelo_error),
                    format!("{:.4}", e.los),
                ],
                None => vec![
                    "0".into(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                ],
            };
            let _ = writeln!(csv, "{label},{v},{}", cells.join(","));
            let _ = match p.estimate {
                Some(e) => writeln!(
                    md,
                    "| {label} | {v} | {} | {} [{}, {}] | {} ± {} | {:.1} % |",
                    cells[0],
                    cells[1],
                    cells[2],
                    cells[3],
                    cells[4],
                    cells[5],
                    100.0 * e.los
                ),
                None => writeln!(md, "| {label} | {v} | 0 | - | - | - |"),
            };
        }
    }
    (csv, md)
}

/// Whether a sweep over `key` sets it on `spec`: a built-in engine has every parameter
/// but an outside engine's option (its own errors name a missing one); an outside engine
/// has its options and its limits and waits.
fn has_parameter(spec: &EngineSpec, key: &str) -> bool {
    match spec {
        EngineSpec::Builtin(_) => !key.starts_with("option."),
        EngineSpec::External(_) => {
            key.starts_with("option.")
                || matches!(
                    key.strip_prefix("search.").unwrap_or(key),
                    "depth" | "nodes" | "movetime_ms" | "tc"
                )
                || matches!(key, "tolerance_ms" | "reply_timeout_ms" | "restart")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::point_folder;

    #[test]
    fn point_folders_stay_inside_the_sweep() {
        assert_eq!(point_folder("search.depth", "3"), "search.depth=3");
        assert_eq!(
            point_folder("option.foo", "../../../pwn1"),
            "option.foo=..%2F..%2F..%2Fpwn1"
        );
        assert_eq!(
            point_folder("option.f", "a\\b%2F\n"),
            "option.f=a%5Cb%252F%0A"
        );
        assert_ne!(
            point_folder("option.f", "%2F"),
            point_folder("option.f", "/")
        );
    }
}
