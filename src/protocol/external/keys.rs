//! The keys of an outside engine, declared once. `outside_keys!` holds the list (name,
//! type as written, type once resolved, how it resolves, its name in `arena match`'s
//! `cmd=...` and whether it is a named parameter, one line of doc) and hands it to a
//! generator macro, which writes from it: the fields of the written forms (an engine
//! file's [`super::ExternalFields`], a tournament's `[[engines]]` entry), the fields of
//! the resolved form [`super::ExternalEngine`] (what `run.toml` stores), the key lists
//! that messages name, and the copy from one form to the next. A new key is one entry
//! in the list plus its use.
//!
//! The written forms keep their own structs (no `serde(flatten)`): flattening would
//! lose `deny_unknown_fields` and the line and key of serde's messages.

use std::path::Path;

use crate::game::GameSpec;

/// What resolving an outside engine's keys needs: the config its paths are relative to
/// and the game it plays (the default protocol is the game's).
pub struct Resolving<'a> {
    /// The config file (relative paths are resolved against its folder).
    pub base: &'a Path,
    /// The game the engine plays.
    pub game: GameSpec,
}

/// A written key that may be left out: `None`, an empty list or table. Written forms
/// leave unset keys out when serialised and list the given ones in messages.
pub trait Given {
    /// Whether the config gives this key.
    fn is_given(&self) -> bool;
    /// Whether the config leaves this key out.
    fn is_unset(&self) -> bool {
        !self.is_given()
    }
}

impl<T> Given for Option<T> {
    fn is_given(&self) -> bool {
        self.is_some()
    }
}

impl<T> Given for Vec<T> {
    fn is_given(&self) -> bool {
        !self.is_empty()
    }
}

impl Given for toml::Table {
    fn is_given(&self) -> bool {
        !self.is_empty()
    }
}

/// The one declaration of an outside engine's keys besides `name`, `command` and (for an
/// engine file) `game`, in the order messages list them. Calls
/// `$callback! { { $($pass)* } KEY... }` with, for each key:
///
/// `/// doc` `KEY: WRITTEN => RESOLVED [serde attributes of the resolved field],`
/// `cmd NAME_IN_CMD_SPEC, param(none | option | plain | search),`
/// `resolve(VALUE, CONTEXT) EXPRESSION;`
///
/// `param`: how `--set`/`set = {...}` reaches it: `option` as `option.NAME`, `plain` by
/// its name, `search` by its name or as `search.NAME` (as a built-in engine's limit).
/// `resolve` turns the written value (`&WRITTEN`) into the resolved one, given a
/// [`Resolving`]; it may use `?` on an [`super::ExternalError`].
macro_rules! outside_keys {
    ($callback:ident! { $($pass:tt)* }) => {
        $callback! {
            { $($pass)* }
            /// Its arguments, passed as they are (no shell).
            args: Vec<String> => Vec<String> [default, skip_serializing_if = "Vec::is_empty"],
                cmd Some("arg"), param(none), resolve(v, _cx) v.clone();
            /// The protocol it speaks, `gomocup` or `uai` (default: the game's).
            protocol: Option<$crate::protocol::Protocol> => $crate::protocol::Protocol [],
                cmd Some("proto"), param(none),
                resolve(v, cx) v.unwrap_or_else(|| {
                    $crate::protocol::Protocol::for_family(cx.game.family())
                });
            /// The folder it runs in (relative to the config; default: the current one).
            working_dir: Option<String> => Option<String>
                [default, skip_serializing_if = "Option::is_none"],
                cmd Some("dir"), param(none),
                resolve(v, cx) v
                    .as_ref()
                    .map(|d| $crate::config::resolve(cx.base, d).display().to_string());
            /// Sent after start-up: `INFO key value` (gomocup), `setoption name key value
            /// Y` (uai).
            options: ::toml::Table => ::std::collections::BTreeMap<String, String>
                [default, skip_serializing_if = "BTreeMap::is_empty"],
                cmd Some("option.KEY"), param(option),
                resolve(v, _cx) $crate::protocol::external::option_texts(v)?;
            /// Depth limit per move (gomocup `INFO max_depth`, uai `go depth`).
            depth: Option<u32> => Option<u32> [default, skip_serializing_if = "Option::is_none"],
                cmd Some("depth"), param(search), resolve(v, _cx) *v;
            /// Node limit per move (gomocup `INFO max_node`, uai `go nodes`).
            nodes: Option<u64> => Option<u64> [default, skip_serializing_if = "Option::is_none"],
                cmd Some("nodes"), param(search), resolve(v, _cx) *v;
            /// Time per move in milliseconds (gomocup `INFO timeout_turn`, uai `go
            /// movetime`).
            movetime_ms: Option<u64> => Option<u64>
                [default, skip_serializing_if = "Option::is_none"],
                cmd Some("movetime"), param(search), resolve(v, _cx) *v;
            /// A game time control `seconds+increment` (`"10+0.1"`: gomocup
            /// `timeout_match` and `time_left`, uai `btime`/`wtime`/`binc`/`winc`); the
            /// harness keeps the clock.
            tc: Option<$crate::engine::TimeControl> => Option<$crate::engine::TimeControl>
                [default, skip_serializing_if = "Option::is_none"],
                cmd Some("tc"), param(search), resolve(v, _cx) *v;
            /// Time past a move's limit before the engine counts as hung and is killed
            /// (default 1000).
            tolerance_ms: Option<u64> => u64
                [default = "default_tolerance", skip_serializing_if = "is_default_tolerance"],
                cmd None, param(plain),
                resolve(v, _cx) v.unwrap_or($crate::protocol::external::DEFAULT_TOLERANCE_MS);
            /// Wait for replies without a time limit: handshakes, moves limited by depth or
            /// nodes only (default 60000).
            reply_timeout_ms: Option<u64> => u64
                [
                    default = "default_reply_timeout",
                    skip_serializing_if = "is_default_reply_timeout"
                ],
                cmd None, param(plain),
                resolve(v, _cx) v.unwrap_or($crate::protocol::external::DEFAULT_REPLY_TIMEOUT_MS);
            /// A fresh process for every game (true, cutechess-cli's `restart=on`), never
            /// (false: only after a fault), or, unset, before a game that begins from the
            /// position the process's last game began from. A process that has played
            /// keeps what it learnt (a hash table many engines clear on no protocol
            /// command), and a gauntlet plays each round's opening against every
            /// challenger in turn, a pair one opening twice: without a fresh process the
            /// engine would meet an opening it has just searched.
            restart: Option<bool> => Option<bool> [default, skip_serializing_if = "Option::is_none"],
                cmd Some("restart"), param(search), resolve(v, _cx) *v;
        }
    };
}

/// Writes a written form: the struct given, with the outside keys appended as fields
/// (left out when unset), and `OUTSIDE_KEYS`, `outside_keys_given` and `outside_keys`.
macro_rules! written_outside_form {
    (
        {
            $(#[$attr:meta])*
            $vis:vis struct $name:ident { $($fields:tt)* }
        }
        $(
            $(#[doc = $doc:expr])*
            $key:ident : $written:ty => $resolved:ty [$($serde:tt)*],
            cmd $cmd:expr, param($param:ident), resolve($v:ident, $cx:ident) $resolve:expr;
        )*
    ) => {
        $(#[$attr])*
        $vis struct $name {
            $($fields)*
            $(
                $(#[doc = $doc])*
                #[serde(
                    default,
                    skip_serializing_if = "crate::protocol::external::keys::Given::is_unset"
                )]
                pub $key: $written,
            )*
        }

        impl $name {
            /// The keys of an outside engine besides `name` and `command`, in the order
            /// messages list them.
            pub const OUTSIDE_KEYS: &'static [&'static str] = &[$(stringify!($key)),*];

            /// The keys of [`Self::OUTSIDE_KEYS`] this config gives, in that order.
            pub fn outside_keys_given(&self) -> impl Iterator<Item = &'static str> {
                use $crate::protocol::external::keys::Given;
                [$((stringify!($key), self.$key.is_given())),*]
                    .into_iter()
                    .filter_map(|(key, given)| given.then_some(key))
            }

            /// The outside keys as written, to resolve with
            /// [`ExternalEngine::resolve_keys`](crate::protocol::ExternalEngine::resolve_keys).
            pub fn outside_keys(&self) -> $crate::protocol::external::keys::OutsideKeys {
                $crate::protocol::external::keys::OutsideKeys {
                    $($key: self.$key.clone()),*
                }
            }
        }
    };
}

/// Writes [`OutsideKeys`] and the lists of names: in `cmd=...` specs, as parameters.
macro_rules! outside_key_lists {
    (
        {}
        $(
            $(#[doc = $doc:expr])*
            $key:ident : $written:ty => $resolved:ty [$($serde:tt)*],
            cmd $cmd:expr, param($param:ident), resolve($v:ident, $cx:ident) $resolve:expr;
        )*
    ) => {
        /// An outside engine's keys as written (besides `name` and `command`), taken
        /// from a written form to be resolved.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct OutsideKeys {
            $(
                $(#[doc = $doc])*
                pub $key: $written,
            )*
        }

        /// Every outside key's name in a `cmd=PATH,KEY=VALUE...` spec of `arena match`
        /// (besides `name`), in the order messages list them.
        pub const CMD_KEYS: &[&str] = {
            const ALL: [Option<&str>; [$(stringify!($key)),*].len()] = [$($cmd),*];
            const N: usize = {
                let mut n = 0;
                let mut i = 0;
                while i < ALL.len() {
                    if ALL[i].is_some() {
                        n += 1;
                    }
                    i += 1;
                }
                n
            };
            const LIST: [&str; N] = {
                let mut out = [""; N];
                let (mut i, mut j) = (0, 0);
                while i < ALL.len() {
                    if let Some(name) = ALL[i] {
                        out[j] = name;
                        j += 1;
                    }
                    i += 1;
                }
                out
            };
            &LIST
        };

        /// The outside key that `NAME=VALUE` in a `cmd=...` spec sets (`proto` sets
        /// `protocol`), if it is one of [`CMD_KEYS`].
        pub fn cmd_key(name: &str) -> Option<&'static str> {
            const PAIRS: &[(Option<&str>, &str)] = &[$(($cmd, stringify!($key))),*];
            PAIRS
                .iter()
                .find(|(cmd, _)| *cmd == Some(name))
                .map(|(_, key)| *key)
        }

        /// The named parameters of an outside engine (`--set`, `set = {...}`, a tune's
        /// parameters), in the order messages list them: its options (`option.NAME`),
        /// its limits (`depth`, `nodes`, `movetime_ms`, `tc`, also written `search.depth`
        /// ... as a built-in engine's, so one assignment sets both kinds; 0 or "" clears
        /// one) and its waits.
        pub const PARAMETERS: &str = {
            const JOINED: &str = concat!($(outside_key_lists!(@param $param $key)),*);
            // Every piece starts with ", ".
            JOINED.split_at(2).1
        };
    };
    (@param none $key:ident) => { "" };
    (@param option $key:ident) => { ", option.NAME" };
    (@param plain $key:ident) => { concat!(", ", stringify!($key)) };
    (@param search $key:ident) => { concat!(", ", stringify!($key)) };
}

/// Writes the resolved form: the struct given, with the outside keys appended as resolved
/// fields, and `resolve_keys` (written keys to resolved ones) and `assign_parameter`
/// (a named parameter of [`PARAMETERS`] other than `option.NAME`).
macro_rules! resolved_outside_form {
    (
        {
            $(#[$attr:meta])*
            $vis:vis struct $name:ident { $($fields:tt)* }
        }
        $(
            $(#[doc = $doc:expr])*
            $key:ident : $written:ty => $resolved:ty [$($serde:tt)*],
            cmd $cmd:expr, param($param:ident), resolve($v:ident, $cx:ident) $resolve:expr;
        )*
    ) => {
        $(#[$attr])*
        $vis struct $name {
            $($fields)*
            $(
                $(#[doc = $doc])*
                #[serde($($serde)*)]
                pub $key: $resolved,
            )*
        }

        impl $name {
            /// The engine `name` running `command` with the outside keys `keys`, paths
            /// resolved and defaults filled in (not yet checked).
            pub fn resolve_keys(
                name: String,
                command: String,
                keys: &$crate::protocol::external::keys::OutsideKeys,
                context: &$crate::protocol::external::keys::Resolving<'_>,
            ) -> Result<$name, $crate::protocol::external::ExternalError> {
                Ok($name {
                    name,
                    command,
                    $($key: {
                        #[allow(clippy::trivially_copy_pass_by_ref, clippy::ptr_arg)]
                        fn resolve(
                            $v: &$written,
                            $cx: &$crate::protocol::external::keys::Resolving<'_>,
                        ) -> Result<$resolved, $crate::protocol::external::ExternalError> {
                            Ok($resolve)
                        }
                        resolve(&keys.$key, context)?
                    },)*
                })
            }

            /// Sets the named parameter `key` (its bare name, or `search.NAME` for a
            /// limit) if it is one of this form's own fields; `None` if there is none.
            fn assign_parameter(
                &mut self,
                key: &str,
                value: ::toml::Value,
            ) -> Option<Result<(), $crate::protocol::external::ExternalError>> {
                $($crate::protocol::external::keys::assign_outside_key!(
                    $param self $key key value
                );)*
                None
            }
        }
    };
}

/// Sets `$this.$key` from `$value` and returns if `$given` names the parameter `$key`
/// of kind `none`, `option` (set elsewhere), `plain` or `search`.
macro_rules! assign_outside_key {
    (none $this:ident $key:ident $given:ident $value:ident) => {};
    (option $this:ident $key:ident $given:ident $value:ident) => {};
    (plain $this:ident $key:ident $given:ident $value:ident) => {
        if $given == stringify!($key) {
            use $crate::protocol::external::SetParameter;
            return Some($this.$key.set_parameter($given, $value));
        }
    };
    (search $this:ident $key:ident $given:ident $value:ident) => {
        if $given == stringify!($key) || $given == concat!("search.", stringify!($key)) {
            use $crate::protocol::external::SetParameter;
            return Some($this.$key.set_parameter($given, $value));
        }
    };
}

pub(crate) use {assign_outside_key, outside_keys, resolved_outside_form, written_outside_form};

outside_keys!(outside_key_lists! {});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::external::{ExternalEngine, ExternalFields};

    /// The lists that messages name read as they did when each was written by hand.
    #[test]
    fn the_lists_come_from_the_one_declaration() {
        let written = [
            "args",
            "protocol",
            "working_dir",
            "options",
            "depth",
            "nodes",
            "movetime_ms",
            "tc",
            "tolerance_ms",
            "reply_timeout_ms",
            "restart",
        ];
        // A tournament's `[[engines]]` entry has the same list, from the same macro.
        assert_eq!(ExternalFields::OUTSIDE_KEYS, written);
        assert_eq!(
            PARAMETERS,
            "option.NAME, depth, nodes, movetime_ms, tc, tolerance_ms, reply_timeout_ms, \
             restart"
        );
        assert_eq!(ExternalEngine::PARAMETERS, PARAMETERS);
        assert_eq!(
            CMD_KEYS,
            [
                "arg",
                "proto",
                "dir",
                "option.KEY",
                "depth",
                "nodes",
                "movetime",
                "tc",
                "restart"
            ]
        );
        assert_eq!(cmd_key("proto"), Some("protocol"));
        assert_eq!(cmd_key("movetime"), Some("movetime_ms"));
        assert_eq!(cmd_key("tolerance_ms"), None);
    }

    /// The keys copied out of a written form resolve to the engine the form does, and
    /// `run.toml` stores the keys given (sorted, as a TOML table keeps them) and the
    /// defaults it always has.
    #[test]
    fn both_written_forms_resolve_alike_in_run_toml_order() {
        let keys = "command = \"bin/x\"\nrestart = true\ndepth = 3\nargs = [\"-v\"]\n\
                    options = { hash = 8 }\ntolerance_ms = 5\nworking_dir = \"w\"\n";
        let base = Path::new("/cfg/e.toml");
        let fields: ExternalFields = toml::from_str(keys).unwrap();
        let engine = fields.resolve(base, GameSpec::Ataxx).unwrap();
        let from_keys = crate::protocol::external::resolve(
            None,
            &fields.command,
            &fields.outside_keys(),
            base,
            GameSpec::Ataxx,
        )
        .unwrap();
        assert_eq!(engine, from_keys);
        assert_eq!(engine.command, "/cfg/bin/x");
        assert_eq!(engine.working_dir.as_deref(), Some("/cfg/w"));
        assert_eq!(engine.options["hash"], "8");
        assert_eq!(
            engine.reply_timeout_ms,
            super::super::DEFAULT_REPLY_TIMEOUT_MS
        );
        let given: Vec<_> = fields.outside_keys_given().collect();
        assert_eq!(
            given,
            [
                "args",
                "working_dir",
                "options",
                "depth",
                "tolerance_ms",
                "restart"
            ]
        );
        let resolved = engine.to_resolved();
        let stored: Vec<&str> = resolved.keys().map(String::as_str).collect();
        assert_eq!(
            stored,
            [
                "args",
                "command",
                "depth",
                "name",
                "options",
                "protocol",
                "restart",
                "tolerance_ms",
                "working_dir"
            ]
        );
        assert_eq!(
            ExternalEngine::from_resolved("run.toml", resolved).unwrap(),
            engine
        );
    }
}
