//! The adjudication flags of `arena match`, spelled as cutechess-cli and fastchess spell
//! them (`--draw movenumber=40,movecount=8,score=10`, `--resign movecount=3,score=600,
//! twosided=true`), set on a config's `[adjudication]`.

use arena::tournament::config::Adjudication;
use clap::Args;

/// Adjudication flags (each the `[adjudication]` keys of a run config).
#[derive(Args, Clone, Debug, Default)]
pub struct AdjudicationArgs {
    /// Draw when both engines' scores stayed within ±score for movecount moves each,
    /// from move number movenumber on (cutechess's -draw; movenumber and score default
    /// to 0): [adjudication] draw_movenumber, draw_movecount, draw_score.
    #[arg(
        long,
        value_name = "movenumber=N,movecount=N,score=N",
        value_parser = parse_draw
    )]
    draw: Option<DrawFlag>,
    /// Resign for an engine whose score stayed at or below -score for movecount of its
    /// moves in a row; twosided=true: and its opponent's at or above +score (cutechess's
    /// -resign): [adjudication] resign_moves, resign_score, resign_twosided.
    #[arg(
        long,
        value_name = "movecount=N,score=N[,twosided=true]",
        value_parser = parse_resign
    )]
    resign: Option<ResignFlag>,
    /// Ataxx: a win for the side that led by margin stones after moves plies in a row
    /// (moves defaults to 1; cuteataxx's material): [adjudication] material_margin,
    /// material_moves.
    #[arg(long, value_name = "margin=N[,moves=N]", value_parser = parse_material)]
    material: Option<MaterialFlag>,
    /// Gomoku and other m,n,k-games: a win that arena's VCF solver proves for the side to
    /// move ends the game ([adjudication] vcf_win = true).
    #[arg(long)]
    vcf_win: bool,
}

/// `--draw`.
#[derive(Clone, Copy, Debug)]
pub struct DrawFlag {
    movenumber: u32,
    movecount: u32,
    score: i32,
}

/// `--resign`.
#[derive(Clone, Copy, Debug)]
pub struct ResignFlag {
    movecount: u32,
    score: i32,
    twosided: bool,
}

/// `--material`.
#[derive(Clone, Copy, Debug)]
pub struct MaterialFlag {
    margin: u32,
    moves: Option<u32>,
}

impl AdjudicationArgs {
    /// Sets the flags' keys of a config's `[adjudication]` (checked with the config).
    pub fn apply(&self, a: &mut Adjudication) {
        if let Some(d) = self.draw {
            a.draw_movenumber = d.movenumber;
            a.draw_movecount = d.movecount;
            a.draw_score = d.score;
        }
        if let Some(r) = self.resign {
            a.resign_moves = r.movecount;
            a.resign_score = r.score;
            a.resign_twosided = r.twosided;
        }
        if let Some(m) = self.material {
            a.material_margin = m.margin;
            if let Some(moves) = m.moves {
                a.material_moves = moves;
            }
        }
        if self.vcf_win {
            a.vcf_win = true;
        }
    }
}

/// Why an adjudication flag's value cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum FlagError {
    /// A part that is not `KEY=VALUE`.
    #[error("'{part}' is not KEY=VALUE ({})", known.join(", "))]
    NotKeyValue {
        /// The part.
        part: String,
        /// The flag's keys.
        known: &'static [&'static str],
    },
    /// A key the flag does not have.
    #[error("unknown key '{key}' (known: {})", known.join(", "))]
    UnknownKey {
        /// The key.
        key: String,
        /// The flag's keys.
        known: &'static [&'static str],
    },
    /// A key given twice.
    #[error("'{0}' is given twice")]
    Twice(String),
    /// A key whose value is not a number.
    #[error("{key}={value}: not a valid number")]
    NotANumber {
        /// The key.
        key: String,
        /// The value.
        value: String,
    },
    /// `twosided=` with a value that is not a boolean.
    #[error("twosided={0}: expected true or false")]
    NotABool(String),
    /// A needed key is missing (or 0).
    #[error("{0} is needed")]
    Missing(&'static str),
    /// A value out of its range.
    #[error("{0}")]
    Invalid(&'static str),
}

/// `KEY=VALUE,...` with every key among `known`, each at most once.
fn pairs<'a>(
    text: &'a str,
    known: &'static [&'static str],
) -> Result<Vec<(&'a str, &'a str)>, FlagError> {
    let mut seen: Vec<&str> = Vec::new();
    text.split(',')
        .map(|part| {
            let (key, value) =
                part.trim()
                    .split_once('=')
                    .ok_or_else(|| FlagError::NotKeyValue {
                        part: part.to_string(),
                        known,
                    })?;
            let key = key.trim();
            if !known.contains(&key) {
                return Err(FlagError::UnknownKey {
                    key: key.to_string(),
                    known,
                });
            }
            if seen.contains(&key) {
                return Err(FlagError::Twice(key.to_string()));
            }
            seen.push(key);
            Ok((key, value.trim()))
        })
        .collect()
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, FlagError> {
    value.parse().map_err(|_| FlagError::NotANumber {
        key: key.to_string(),
        value: value.to_string(),
    })
}

fn parse_draw(text: &str) -> Result<DrawFlag, FlagError> {
    let mut flag = DrawFlag {
        movenumber: 0,
        movecount: 0,
        score: 0,
    };
    let mut has_count = false;
    for (key, value) in pairs(text, &["movenumber", "movecount", "score"])? {
        match key {
            "movenumber" => flag.movenumber = number(key, value)?,
            "movecount" => {
                flag.movecount = number(key, value)?;
                has_count = true;
            }
            _ => flag.score = number(key, value)?,
        }
    }
    if !has_count || flag.movecount == 0 {
        return Err(FlagError::Missing("movecount=N (at least 1)"));
    }
    if flag.score < 0 {
        return Err(FlagError::Invalid(
            "score cannot be negative (it is a ± margin)",
        ));
    }
    Ok(flag)
}

fn parse_resign(text: &str) -> Result<ResignFlag, FlagError> {
    let (mut movecount, mut score, mut twosided) = (None, None, false);
    for (key, value) in pairs(text, &["movecount", "score", "twosided"])? {
        match key {
            "movecount" => movecount = Some(number::<u32>(key, value)?),
            "score" => score = Some(number::<i32>(key, value)?),
            _ => {
                twosided = match value {
                    "true" | "on" | "1" => true,
                    "false" | "off" | "0" => false,
                    _ => return Err(FlagError::NotABool(value.to_string())),
                }
            }
        }
    }
    match (movecount, score) {
        (Some(movecount), Some(score)) if movecount > 0 && score > 0 => Ok(ResignFlag {
            movecount,
            // cutechess writes the threshold negative (score=-600): the margin is the same.
            score,
            twosided,
        }),
        (Some(movecount), Some(score)) if movecount > 0 && score < 0 => Ok(ResignFlag {
            movecount,
            score: -score,
            twosided,
        }),
        _ => Err(FlagError::Missing("movecount=N and score=N (both not 0)")),
    }
}

fn parse_material(text: &str) -> Result<MaterialFlag, FlagError> {
    let mut flag = MaterialFlag {
        margin: 0,
        moves: None,
    };
    for (key, value) in pairs(text, &["margin", "moves"])? {
        match key {
            "margin" => flag.margin = number(key, value)?,
            _ => flag.moves = Some(number(key, value)?),
        }
    }
    if flag.margin == 0 {
        return Err(FlagError::Missing("margin=N (at least 1)"));
    }
    if flag.moves == Some(0) {
        return Err(FlagError::Invalid("moves must be at least 1"));
    }
    Ok(flag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_read_as_cutechess_writes_them() {
        let d = parse_draw("movenumber=40,movecount=8,score=10").expect("valid");
        assert_eq!((d.movenumber, d.movecount, d.score), (40, 8, 10));
        assert!(parse_draw("movenumber=40,score=10").is_err());
        assert!(matches!(parse_draw("movecount=8,scor=10"),
                Err(FlagError::UnknownKey { key, .. }) if key == "scor"));
        assert!(parse_draw("movecount=8,movecount=9").is_err());
        let r = parse_resign("movecount=3,score=-600,twosided=true").expect("valid");
        assert_eq!((r.movecount, r.score, r.twosided), (3, 600, true));
        assert!(parse_resign("movecount=3").is_err());
        assert!(parse_resign("movecount=3,score=600,twosided=maybe").is_err());
        let m = parse_material("margin=30").expect("valid");
        assert_eq!((m.margin, m.moves), (30, None));
        assert!(parse_material("moves=2").is_err());
    }
}
