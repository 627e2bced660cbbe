//! Reading back what a long job wrote (its checkpoint, its report), with errors that
//! name the file and the line ([`read_json`], [`damaged`]), and floats written so that
//! they read back to the very same bits ([`exact`]): a resumed job goes on exactly where
//! it stopped.

use std::{fs, path::Path};

use serde::de::DeserializeOwned;

use crate::tournament::RunError;

/// Reads a JSON file arena wrote (None when there is none), with an error that names the
/// file and line when it is not `what` (`a tuning checkpoint`). Returns the text too, so
/// later checks can name the line of a key.
pub fn read_json<T: DeserializeOwned>(
    path: &Path,
    what: &str,
) -> Result<Option<(T, String)>, RunError> {
    let text = match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| {
            RunError::Input(format!(
                "{}: not UTF-8 text, so not {what}; move it away to start afresh",
                path.display()
            ))
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(RunError::Io {
                path: path.display().to_string(),
                source,
            });
        }
    };
    let value = serde_json::from_str(&text).map_err(|e| {
        RunError::Input(format!(
            "{}:{}: not {what} ({e}); move it away to start afresh",
            path.display(),
            e.line()
        ))
    })?;
    Ok(Some((value, text)))
}

/// The error for a damaged checkpoint: `state.json:LINE: key `key`: what`, the line
/// being the key's in the checkpoint's `text`.
pub fn damaged(path: &Path, text: &str, key: &str, what: impl std::fmt::Display) -> RunError {
    RunError::Input(format!(
        "{}:{}: key `{key}`: {what}; the checkpoint is damaged (move it away to start \
         afresh)",
        path.display(),
        key_line(text, key)
    ))
}

/// The 1-based line of the first `"key"` in JSON `text` (1 when it is not there).
pub fn key_line(text: &str, key: &str) -> usize {
    let quoted = format!("\"{key}\"");
    text.find(&quoted)
        .map_or(1, |at| text[..at].matches('\n').count() + 1)
}

/// Floats in checkpoints, read back to the very same bits: serde adapters for `Vec<f64>`
/// (`#[serde(with = "...")]`), as decimal text (the shortest that round-trips) or as the
/// hex digits of the bits.
pub mod exact {
    use serde::{Deserialize, Deserializer, Serializer, de::Error as _, ser::SerializeSeq};

    fn write<S: Serializer>(
        values: &[f64],
        s: S,
        text: fn(f64) -> String,
    ) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(values.len()))?;
        for &v in values {
            seq.serialize_element(&text(v))?;
        }
        seq.end()
    }

    fn read<'de, D: Deserializer<'de>>(
        d: D,
        parse: fn(&str) -> Option<f64>,
        what: &str,
    ) -> Result<Vec<f64>, D::Error> {
        let texts = Vec::<String>::deserialize(d)?;
        texts
            .iter()
            .map(|t| parse(t).ok_or_else(|| D::Error::custom(format!("'{t}' is not {what}"))))
            .collect()
    }

    /// Each value as the shortest decimal text that reads back to it.
    pub mod decimal {
        use serde::{Deserializer, Serializer};

        /// Serde: writes each value as text.
        pub fn serialize<S: Serializer>(values: &[f64], s: S) -> Result<S::Ok, S::Error> {
            super::write(values, s, |v| v.to_string())
        }

        /// Serde: reads what [`serialize`] writes.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
            super::read(d, |t| t.parse().ok(), "a number")
        }
    }

    /// Each value as 16 hex digits of its bits.
    pub mod bits {
        use serde::{Deserializer, Serializer};

        /// Serde: writes each value's bits.
        pub fn serialize<S: Serializer>(values: &[f64], s: S) -> Result<S::Ok, S::Error> {
            super::write(values, s, |v| format!("{:016x}", v.to_bits()))
        }

        /// Serde: reads what [`serialize`] writes.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
            super::read(
                d,
                |t| u64::from_str_radix(t, 16).ok().map(f64::from_bits),
                "16 hex digits",
            )
        }
    }
}
