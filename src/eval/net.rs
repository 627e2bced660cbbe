//! A small network on top of an Ataxx table: the `[net]` section of a table file.
//!
//! Its inputs are the 98 squares' stones from the side to move's view: input `s` is 1
//! when the side to move has a stone on square `s` (a1 = 0, b1 = 1, .. g7 = 48, the
//! order of [`crate::game::ataxx::square_name`]), input `49 + s` when the opponent has.
//! One hidden layer of `hidden` units, each clipped to 0..=1 (in 1/1024ths:
//! 0..=[`ONE`]), feeds two outputs: one for an empty board and one for a full one,
//! blended by the same phase as the table's `[endgame]` (the share of the playable
//! squares that hold stones). The result, in the table's units, is added to the
//! table's score.
//!
//! Every number is an integer, so the score is the same on every machine: the input
//! weights and the hidden biases in 1/1024ths of a unit's activation, the output
//! weights in table units at a unit's full activation. `arena fit` writes the section
//! (docs/fitting.md, "A net on top of the table"); a table without it scores exactly as
//! before.

use serde::{Deserialize, Serialize};

/// Inputs: the side to move's stones on the 49 squares, then the opponent's.
pub const INPUTS: usize = 98;

/// A unit's full activation (the clip's top), in the fixed-point units of the weights.
pub const ONE: i64 = 1024;

/// The most hidden units a table may have.
pub const MAX_HIDDEN: usize = 512;

/// The largest magnitude of an input weight or hidden bias (64 full activations: no
/// sum of 99 of them leaves `i32`).
pub const MAX_INPUT: i64 = 64 * ONE;

/// The largest magnitude of an output weight or output bias (100 stones of 100).
pub const MAX_OUTPUT: i64 = 10_000;

/// Whether the named parameter `name` is an Ataxx table's `[net]` or a number in it.
pub fn is_param(name: &str) -> bool {
    name == "table.net" || name.starts_with("table.net.")
}

/// A table's `[net]` is data that `arena fit` writes, not a parameter: setting it by
/// name (`--set`, `set =`, a tune) is refused with this message.
pub fn refuse_param(name: &str) -> Result<(), String> {
    if is_param(name) {
        return Err(format!(
            "`{name}`: a table's [net] is data that `arena fit` writes, not a parameter to \
             set (fit it with a [net] section in a fit config)"
        ));
    }
    Ok(())
}

/// The `[net]` section of an Ataxx table (see the module's documentation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AtaxxNet {
    /// Hidden units.
    pub hidden: usize,
    /// Per input, per hidden unit (`input[i * hidden + j]`), in 1/1024ths.
    pub input: Vec<i32>,
    /// Per hidden unit, in 1/1024ths.
    pub bias: Vec<i32>,
    /// Per hidden unit, its worth on an empty board at full activation (table units).
    pub output: Vec<i32>,
    /// Per hidden unit, its worth on a full board at full activation (table units).
    pub output_endgame: Vec<i32>,
    /// Added on an empty board and on a full one (table units).
    #[serde(default)]
    pub output_bias: [i32; 2],
}

/// What is wrong with a `[net]` section; the message names the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NetError {
    /// `hidden` out of range.
    #[error("key `net.hidden`: {0} is outside 1..={MAX_HIDDEN}")]
    Hidden(usize),
    /// An array of the wrong length.
    #[error("key `net.{key}`: {found} numbers where `hidden` = {hidden} needs {expected}")]
    Length {
        /// The array's key.
        key: &'static str,
        /// Numbers given.
        found: usize,
        /// Numbers needed.
        expected: usize,
        /// The section's `hidden`.
        hidden: usize,
    },
    /// A number out of range.
    #[error("key `net.{key}`: number {index} ({value}) is outside -{max}..={max}")]
    Range {
        /// The array's key.
        key: &'static str,
        /// Its place in the array, from 0.
        index: usize,
        /// The number.
        value: i32,
        /// The bound.
        max: i64,
    },
}

impl AtaxxNet {
    /// A net of `hidden` units that adds nothing: every weight 0.
    pub fn zero(hidden: usize) -> AtaxxNet {
        AtaxxNet {
            hidden,
            input: vec![0; INPUTS * hidden],
            bias: vec![0; hidden],
            output: vec![0; hidden],
            output_endgame: vec![0; hidden],
            output_bias: [0; 2],
        }
    }

    /// Checks the sizes and the ranges (what reading a table does).
    pub fn validate(&self) -> Result<(), NetError> {
        let h = self.hidden;
        if h == 0 || h > MAX_HIDDEN {
            return Err(NetError::Hidden(h));
        }
        let arrays: [(&'static str, &[i32], usize, i64); 5] = [
            ("input", &self.input, INPUTS * h, MAX_INPUT),
            ("bias", &self.bias, h, MAX_INPUT),
            ("output", &self.output, h, MAX_OUTPUT),
            ("output_endgame", &self.output_endgame, h, MAX_OUTPUT),
            ("output_bias", &self.output_bias, 2, MAX_OUTPUT),
        ];
        for (key, values, expected, max) in arrays {
            if values.len() != expected {
                return Err(NetError::Length {
                    key,
                    found: values.len(),
                    expected,
                    hidden: h,
                });
            }
            if let Some((index, &value)) = values
                .iter()
                .enumerate()
                .find(|(_, v)| i64::from(**v).abs() > max)
            {
                return Err(NetError::Range {
                    key,
                    index,
                    value,
                    max,
                });
            }
        }
        Ok(())
    }

    /// The section as a table file writes it: `[net]` and its keys, one input's row of
    /// the input weights a line, each row's input named in a comment.
    pub fn to_toml(&self) -> String {
        let list = |v: &[i32]| v.iter().map(i32::to_string).collect::<Vec<_>>().join(", ");
        let mut out = String::from(
            "# A net on top of the terms (docs/configs.md, docs/fitting.md):\n\
             # the input weights and hidden biases in 1/1024ths of a unit's activation, one\n\
             # row a square (the side to move's stones a1..g7, then the opponent's); the\n\
             # outputs in table units at full activation, on an empty and a full board.\n\
             [net]\n",
        );
        out.push_str(&format!("hidden = {}\ninput = [\n", self.hidden));
        for (i, row) in self.input.chunks(self.hidden).enumerate() {
            let side = if i < 49 { "own" } else { "opponent's" };
            let square = crate::game::ataxx::square_name(i % 49);
            out.push_str(&format!("    {}, # {side} {square}\n", list(row)));
        }
        out.push_str("]\n");
        out.push_str(&format!("bias = [{}]\n", list(&self.bias)));
        out.push_str(&format!("output = [{}]\n", list(&self.output)));
        out.push_str(&format!(
            "output_endgame = [{}]\n",
            list(&self.output_endgame)
        ));
        out.push_str(&format!("output_bias = [{}]\n", list(&self.output_bias)));
        out
    }

    /// The hidden units' sums (1/1024ths, before the clip) for the side to move's
    /// stones `own` and the opponent's `opp`, into `acc` (`hidden` long).
    pub fn accumulate(&self, own: u64, opp: u64, acc: &mut [i32]) {
        acc.copy_from_slice(&self.bias);
        for (stones, base) in [(own, 0), (opp, 49)] {
            let mut b = stones;
            while b != 0 {
                let sq = b.trailing_zeros() as usize;
                b &= b - 1;
                self.add_input(acc, base + sq);
            }
        }
    }

    /// Input `input`'s weights, one per hidden unit.
    #[inline]
    fn row(&self, input: usize) -> &[i32] {
        &self.input[input * self.hidden..(input + 1) * self.hidden]
    }

    /// Adds input `input`'s weights to the hidden sums `acc` (`hidden` long): the
    /// input turned on. Two plain slices zipped, so the compiler vectorises it.
    #[inline]
    pub fn add_input(&self, acc: &mut [i32], input: usize) {
        for (a, w) in acc.iter_mut().zip(self.row(input)) {
            *a += w;
        }
    }

    /// Subtracts input `input`'s weights from the hidden sums `acc` (`hidden` long):
    /// the input turned off. Integer sums, so turning an input on and off again in any
    /// order leaves exactly the sums [`AtaxxNet::accumulate`] makes from scratch.
    #[inline]
    pub fn sub_input(&self, acc: &mut [i32], input: usize) {
        for (a, w) in acc.iter_mut().zip(self.row(input)) {
            *a -= w;
        }
    }

    /// The score of the hidden sums `acc` at `stones` stones of `playable` playable
    /// squares, in table units: each output sum blended by the phase, rounded towards
    /// zero once.
    pub fn output(&self, acc: &[i32], stones: i64, playable: i64) -> i64 {
        let (mut mg, mut eg) = (
            i64::from(self.output_bias[0]) * ONE,
            i64::from(self.output_bias[1]) * ONE,
        );
        for ((&a, &o), &e) in acc.iter().zip(&self.output).zip(&self.output_endgame) {
            let a = i64::from(a).clamp(0, ONE);
            mg += a * i64::from(o);
            eg += a * i64::from(e);
        }
        let playable = playable.max(1);
        (mg * (playable - stones) + eg * stones) / (ONE * playable)
    }

    /// The net's score of a position: the side to move's stones `own`, the opponent's
    /// `opp`, `stones` of `playable` squares filled.
    pub fn score(&self, own: u64, opp: u64, stones: i64, playable: i64) -> i64 {
        let mut buf = [0i32; MAX_HIDDEN];
        let acc = &mut buf[..self.hidden];
        self.accumulate(own, opp, acc);
        self.output(acc, stones, playable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A net of two units: unit 0 counts the side to move's stones on a1 and b1 (half
    /// an activation each), unit 1 the opponent's on g7 (a whole one, from a bias of
    /// -1/2).
    fn two_units() -> AtaxxNet {
        let mut net = AtaxxNet::zero(2);
        net.input[0] = 512; // a1, unit 0
        net.input[2] = 512; // b1, unit 0
        net.input[(49 + 48) * 2 + 1] = 2048; // the opponent's g7, unit 1
        net.bias = vec![0, -512];
        net.output = vec![100, -50];
        net.output_endgame = vec![300, -150];
        net.output_bias = [10, -10];
        net
    }

    #[test]
    fn a_hand_made_net_scores_its_known_answers() {
        let net = two_units();
        net.validate().unwrap();
        let (a1, b1, g7) = (1u64, 1u64 << 1, 1u64 << 48);
        // Empty board's weights (no stones of 49): unit 0 off, unit 1 at -1/2 clipped
        // to 0: the bias alone.
        assert_eq!(net.score(0, 0, 0, 49), 10);
        // a1 alone: unit 0 at half, 10 + 50 on an empty board.
        assert_eq!(net.score(a1, 0, 0, 49), 60);
        // a1 and b1: unit 0 full; the opponent on g7: unit 1 clipped at a whole one
        // (1.5 before the clip). On a full board: -10 + 300 - 150.
        assert_eq!(net.score(a1 | b1, g7, 49, 49), 140);
        // Half full: (10 + 100 - 50) / 2 + (-10 + 300 - 150) / 2 = 30 + 70.
        assert_eq!(net.score(a1 | b1, g7, 20, 40), 100);
        // The same stones for the other side score otherwise: inputs are the side to
        // move's view.
        assert_eq!(net.score(g7, a1 | b1, 0, 49), 10);
    }

    #[test]
    fn the_score_rounds_towards_zero_once() {
        let mut net = AtaxxNet::zero(1);
        net.input[0] = 1; // a1: 1/1024 of an activation
        net.output = vec![1000];
        net.output_endgame = vec![-1000];
        // 1000/1024 on an empty board: 0; a third of the way: (2000 - 1000) / 3072.
        assert_eq!(net.score(1, 0, 0, 49), 0);
        net.input[0] = 512;
        assert_eq!(net.score(1, 0, 0, 49), 500);
        assert_eq!(net.score(1, 0, 49, 49), -500);
        assert_eq!(net.score(1, 0, 1, 3), 166); // (500·2 − 500) / 3 = 166.67
        assert_eq!(net.score(1, 0, 2, 3), -166);
    }

    #[test]
    fn inputs_added_and_taken_away_give_the_sums_from_scratch() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        let hidden = 37;
        let mut net = AtaxxNet::zero(hidden);
        let max = MAX_INPUT as i32;
        net.input = (0..INPUTS * hidden)
            .map(|_| rng.random_range(-max..=max))
            .collect();
        net.bias = (0..hidden).map(|_| rng.random_range(-max..=max)).collect();
        net.validate().unwrap();
        let (mut own, mut opp) = (0u64, 0u64);
        let mut acc = vec![0; hidden];
        net.accumulate(own, opp, &mut acc);
        assert_eq!(acc, net.bias);
        let mut want = vec![0; hidden];
        for _ in 0..2_000 {
            // A square changes: filled for one side or the other, or emptied.
            let sq = rng.random_range(0..49);
            let bit = 1u64 << sq;
            for (stones, base) in [(&mut own, 0), (&mut opp, 49)] {
                if *stones & bit != 0 {
                    *stones &= !bit;
                    net.sub_input(&mut acc, base + sq);
                }
            }
            match rng.random_range(0..3) {
                0 => {
                    own |= bit;
                    net.add_input(&mut acc, sq);
                }
                1 => {
                    opp |= bit;
                    net.add_input(&mut acc, 49 + sq);
                }
                _ => {}
            }
            net.accumulate(own, opp, &mut want);
            assert_eq!(acc, want, "{own:#x} {opp:#x}");
        }
    }

    #[test]
    fn bad_sections_name_the_key() {
        let mut net = two_units();
        net.output.push(1);
        assert_eq!(
            net.validate().unwrap_err().to_string(),
            "key `net.output`: 3 numbers where `hidden` = 2 needs 2"
        );
        let mut net = two_units();
        net.input[7] = 70_000;
        assert_eq!(
            net.validate().unwrap_err().to_string(),
            "key `net.input`: number 7 (70000) is outside -65536..=65536"
        );
        let mut net = two_units();
        net.hidden = 0;
        assert!(
            net.validate()
                .unwrap_err()
                .to_string()
                .starts_with("key `net.hidden`: 0")
        );
        let mut net = two_units();
        net.output_bias = [0, -20_000];
        assert!(
            net.validate()
                .unwrap_err()
                .to_string()
                .contains("`net.output_bias`: number 1")
        );
    }
}
