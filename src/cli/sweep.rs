//! `arena sweep`: the same tournament at each value of one engine setting (`search.depth`,
//! `search.movetime_ms`, a table weight), one results folder per point, and a scaling
//! table of every pairing's Elo against the value.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use arena::{
    config::parse_assignment,
    files,
    jobs::lock,
    protocol::EngineSpec,
    report::write_scaling,
    tournament::{
        Summary, Tournament,
        sweep::{claim_sweep, has_parameter, point_folder},
    },
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
                 table.*; outside engines: {})",
                args.config.display(),
                arena::protocol::external::ExternalEngine::PARAMETERS
            );
        }
        points.push((v.to_string(), t, out.join(point_folder(key, v))));
    }
    // One sweep per folder: a second one (another --over on the same --out) would
    // overwrite the scaling files with points of its own.
    let _lock = lock::lock_exclusive(&out, "arena sweep")?;
    claim_sweep(&out, &base.config.name, key, &values, args.job.resume)?;
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
    let written = write_scaling(&out, key, &summaries)?;
    println!("\n{}", written.table);
    println!(
        "scaling table in {} and {}, plot in {}",
        written.markdown.display(),
        written.csv.display(),
        written.svg.display()
    );
    Ok(())
}
