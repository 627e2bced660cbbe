//! The `[net]` of an Ataxx table as the fit sees it: its numbers as floats after the
//! table's weights in the full weight vector, the score they add with its exact
//! gradient, and the conversions from and to the table's whole numbers.
//!
//! In the fit the input weights and hidden biases are in units of a hidden unit's full
//! activation (the table's 1/1024ths divided by 1,024), and the output weights and
//! biases in hundreds of table units (the table's divided by 100): in those units every
//! number is of order one, so one Adam step size suits them all (the `lr` of `[net]`).
//! The fitted values are rounded to the table's units when written; the score of the
//! rounded net is what the engine plays ([`crate::eval::net`]).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use std::sync::LazyLock;

use crate::{
    eval::net::{AtaxxNet, INPUTS, MAX_INPUT, MAX_OUTPUT, ONE},
    game::symmetric_cell,
};

/// The symmetries of the 7×7 board (numbered as [`symmetric_cell`]'s).
pub const SYMMETRIES: usize = 8;

/// Where each square goes under each symmetry (square = rank × 7 + file).
static SQUARE_MAPS: LazyLock<[[u8; 49]; SYMMETRIES]> = LazyLock::new(|| {
    let mut maps = [[0; 49]; SYMMETRIES];
    for (s, map) in maps.iter_mut().enumerate() {
        for (sq, to) in map.iter_mut().enumerate() {
            let (file, rank) = symmetric_cell(sq as i32 % 7, sq as i32 / 7, 7, 7, s);
            *to = (rank * 7 + file) as u8;
        }
    }
    maps
});

/// Both sides' stones under symmetry `symmetry` of the board (0 leaves them).
pub fn symmetric(stones: [u64; 2], symmetry: usize) -> [u64; 2] {
    if symmetry == 0 {
        return stones;
    }
    let map = &SQUARE_MAPS[symmetry];
    stones.map(|mut b| {
        let mut out = 0u64;
        while b != 0 {
            out |= 1 << map[b.trailing_zeros() as usize];
            b &= b - 1;
        }
        out
    })
}

/// The symmetry position `i` is seen in by a training step keyed `key`: fixed by the key
/// and the position alone, so the same on any number of threads.
pub fn symmetry_of(key: u64, i: usize) -> usize {
    let mut z = key ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) % SYMMETRIES as u64) as usize
}

/// Table units per fit unit of an output weight.
const OUTPUT_UNIT: f64 = 100.0;

/// Where a net of `hidden` units keeps its numbers in a slice of the fit's weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetLayout {
    /// Hidden units.
    pub hidden: usize,
}

impl NetLayout {
    /// Numbers in the slice: the input weights (`INPUTS` × `hidden`), the hidden biases,
    /// the output weights on an empty board, on a full one, and the two output biases.
    pub fn numbers(self) -> usize {
        (INPUTS + 3) * self.hidden + 2
    }

    /// The layout of a slice of `len` numbers, if one has it.
    pub fn of_len(len: usize) -> Option<NetLayout> {
        let hidden = len.checked_sub(2)? / (INPUTS + 3);
        (hidden > 0 && NetLayout { hidden }.numbers() == len).then_some(NetLayout { hidden })
    }

    fn bias(self) -> usize {
        INPUTS * self.hidden
    }

    fn output(self) -> usize {
        self.bias() + self.hidden
    }

    fn output_endgame(self) -> usize {
        self.output() + self.hidden
    }

    fn output_bias(self) -> usize {
        self.output_endgame() + self.hidden
    }

    /// The bounds a fitted number stays in: the table's limits in fit units.
    pub fn bounds(self, i: usize) -> (f64, f64) {
        let max = if i < self.output() {
            MAX_INPUT as f64 / ONE as f64
        } else {
            MAX_OUTPUT as f64 / OUTPUT_UNIT
        };
        (-max, max)
    }

    /// The numbers of `net` in fit units.
    pub fn from_table(net: &AtaxxNet) -> Vec<f64> {
        let one = ONE as f64;
        let input = net
            .input
            .iter()
            .chain(&net.bias)
            .map(|&v| f64::from(v) / one);
        let output = net
            .output
            .iter()
            .chain(&net.output_endgame)
            .chain(&net.output_bias)
            .map(|&v| f64::from(v) / OUTPUT_UNIT);
        input.chain(output).collect()
    }

    /// A net to start from: input weights drawn uniformly from ±0.17 (a standard
    /// deviation of 0.1) by `seed`, hidden biases
    /// 0.1 (every unit starts active on some positions), outputs 0: it adds nothing, so
    /// the fit starts at the table's own score.
    pub fn start(self, seed: u64) -> Vec<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut w = vec![0.0; self.numbers()];
        for v in &mut w[..self.bias()] {
            *v = rng.random_range(-0.17..0.17);
        }
        for v in &mut w[self.bias()..self.output()] {
            *v = 0.1;
        }
        w
    }

    /// The fitted numbers `w` as the table's section, rounded to its units.
    pub fn to_table(self, w: &[f64]) -> AtaxxNet {
        let round =
            |v: f64, unit: f64, max: i64| (v * unit).round().clamp(-max as f64, max as f64) as i32;
        let h = self.hidden;
        let input = |r: std::ops::Range<usize>| -> Vec<i32> {
            w[r].iter()
                .map(|&v| round(v, ONE as f64, MAX_INPUT))
                .collect()
        };
        let output = |r: std::ops::Range<usize>| -> Vec<i32> {
            w[r].iter()
                .map(|&v| round(v, OUTPUT_UNIT, MAX_OUTPUT))
                .collect()
        };
        let ob = output(self.output_bias()..self.output_bias() + 2);
        AtaxxNet {
            hidden: h,
            input: input(0..self.bias()),
            bias: input(self.bias()..self.output()),
            output: output(self.output()..self.output_endgame()),
            output_endgame: output(self.output_endgame()..self.output_bias()),
            output_bias: [ob[0], ob[1]],
        }
    }

    /// The score the net `w` adds to a position (the side to move's stones and the
    /// opponent's, the phase), in table units; adds `factor` × its gradient to `grad`
    /// (as long as `w`) unless `factor` is 0.
    #[inline]
    pub fn eval_grad(
        self,
        w: &[f64],
        stones: [u64; 2],
        phase: f64,
        factor: f64,
        grad: &mut [f64],
    ) -> f64 {
        let h = self.hidden;
        // The hidden sums (then, for the gradient, their derivatives in place): as long
        // as the net, not a buffer of the largest one zeroed for every position.
        let mut acc = w[self.bias()..self.output()].to_vec();
        let inputs = |f: &mut dyn FnMut(usize)| {
            for (side, base) in [(stones[0], 0), (stones[1], 49)] {
                let mut b = side;
                while b != 0 {
                    let sq = b.trailing_zeros() as usize;
                    b &= b - 1;
                    f(base + sq);
                }
            }
        };
        inputs(&mut |i| {
            for (a, x) in acc.iter_mut().zip(&w[i * h..(i + 1) * h]) {
                *a += x;
            }
        });
        let (om, oe) = (
            &w[self.output()..self.output_endgame()],
            &w[self.output_endgame()..self.output_bias()],
        );
        let ob = &w[self.output_bias()..self.output_bias() + 2];
        let (mut mg, mut eg) = (ob[0], ob[1]);
        for j in 0..h {
            let a = acc[j].clamp(0.0, 1.0);
            mg += a * om[j];
            eg += a * oe[j];
        }
        let score = OUTPUT_UNIT * ((1.0 - phase) * mg + phase * eg);
        if factor != 0.0 {
            let (fm, fe) = (
                factor * OUTPUT_UNIT * (1.0 - phase),
                factor * OUTPUT_UNIT * phase,
            );
            grad[self.output_bias()] += fm;
            grad[self.output_bias() + 1] += fe;
            // Back into the hidden sums, where the clip passes them.
            for j in 0..h {
                let a = acc[j].clamp(0.0, 1.0);
                grad[self.output() + j] += fm * a;
                grad[self.output_endgame() + j] += fe * a;
                acc[j] = if acc[j] > 0.0 && acc[j] < 1.0 {
                    fm * om[j] + fe * oe[j]
                } else {
                    0.0
                };
            }
            let dacc = &acc;
            for j in 0..h {
                grad[self.bias() + j] += dacc[j];
            }
            inputs(&mut |i| {
                for (g, d) in grad[i * h..(i + 1) * h].iter_mut().zip(dacc.iter()) {
                    *g += d;
                }
            });
        }
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_stones(rng: &mut ChaCha8Rng) -> [u64; 2] {
        let (mut own, mut opp) = (0u64, 0u64);
        for sq in 0..49 {
            match rng.random_range(0..3) {
                0 => own |= 1 << sq,
                1 => opp |= 1 << sq,
                _ => {}
            }
        }
        [own, opp]
    }

    fn random_net(layout: NetLayout, rng: &mut ChaCha8Rng) -> Vec<f64> {
        (0..layout.numbers())
            .map(|_| rng.random_range(-0.3..0.3))
            .collect()
    }

    #[test]
    fn the_gradient_equals_a_finite_difference() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let layout = NetLayout { hidden: 6 };
        for _ in 0..20 {
            let w = random_net(layout, &mut rng);
            let stones = random_stones(&mut rng);
            let phase = rng.random_range(0.0..1.0);
            let mut grad = vec![0.0; w.len()];
            layout.eval_grad(&w, stones, phase, 1.0, &mut grad);
            for i in 0..w.len() {
                let at = |d: f64| {
                    let mut v = w.clone();
                    v[i] += d;
                    layout.eval_grad(&v, stones, phase, 0.0, &mut [])
                };
                let numeric = (at(1e-6) - at(-1e-6)) / 2e-6;
                // A hidden sum at a clip's edge has no derivative there: skip such steps.
                let kink = (at(1e-3) - at(0.0)) / 1e-3 - (at(0.0) - at(-1e-3)) / 1e-3;
                if kink.abs() > 1e-6 {
                    continue;
                }
                assert!(
                    (numeric - grad[i]).abs() < 1e-4 * (1.0 + numeric.abs()),
                    "slot {i}: analytic {} numeric {numeric}",
                    grad[i]
                );
            }
        }
    }

    #[test]
    fn the_rounded_net_scores_within_a_unit_of_the_fit() {
        // What the engine plays is the net rounded to the table's units: on nets whose
        // numbers are already whole in those units, the two agree to the last unit (the
        // engine rounds its blend once, towards zero).
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let layout = NetLayout { hidden: 8 };
        for _ in 0..50 {
            let table = layout.to_table(&random_net(layout, &mut rng));
            table.validate().unwrap();
            let w = NetLayout::from_table(&table);
            assert_eq!(layout.to_table(&w), table, "the conversions round-trip");
            let stones = random_stones(&mut rng);
            let filled = i64::from((stones[0] | stones[1]).count_ones());
            let fit = layout.eval_grad(&w, stones, filled as f64 / 49.0, 0.0, &mut []);
            let engine = table.score(stones[0], stones[1], filled, 49);
            assert!(
                (fit - engine as f64).abs() < 1.0,
                "fit {fit} engine {engine}"
            );
        }
    }

    #[test]
    fn a_started_net_adds_nothing_and_layouts_read_back() {
        let layout = NetLayout { hidden: 32 };
        let w = layout.start(3);
        assert_eq!(w.len(), layout.numbers());
        assert_eq!(NetLayout::of_len(w.len()), Some(layout));
        assert_eq!(NetLayout::of_len(w.len() + 1), None);
        assert_eq!(NetLayout::of_len(0), None);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let stones = random_stones(&mut rng);
        assert_eq!(layout.eval_grad(&w, stones, 0.5, 0.0, &mut []), 0.0);
        assert_eq!(layout.start(3), w, "the start depends on the seed alone");
        assert_ne!(layout.start(4), w);
        assert_eq!(layout.to_table(&w).score(stones[0], stones[1], 30, 49), 0);
    }

    #[test]
    fn the_eight_symmetries_are_the_boards() {
        let name = |sq: usize| format!("{}{}", (b'a' + (sq % 7) as u8) as char, sq / 7 + 1);
        let single = |sq: usize, s: usize| symmetric([1 << sq, 0], s)[0].trailing_zeros();
        // a1 goes to each corner, b1 to each of the eight squares next to a corner's
        // edge, d4 stays: the images of a1, b1 and d4 under 0..8.
        let images = |sq: usize| -> Vec<String> {
            (0..SYMMETRIES)
                .map(|s| name(single(sq, s) as usize))
                .collect()
        };
        assert_eq!(
            images(0),
            ["a1", "g1", "a7", "g7", "a1", "g1", "a7", "g7"],
            "a1"
        );
        assert_eq!(
            images(1),
            ["b1", "f1", "b7", "f7", "a2", "g2", "a6", "g6"],
            "b1"
        );
        assert!(images(24).iter().all(|s| s == "d4"));
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        for _ in 0..200 {
            let stones = random_stones(&mut rng);
            assert_eq!(symmetric(stones, 0), stones);
            let mut seen = std::collections::HashSet::new();
            for s in 0..SYMMETRIES {
                let t = symmetric(stones, s);
                // A bijection of the squares that keeps the sides apart.
                assert_eq!(t[0].count_ones(), stones[0].count_ones());
                assert_eq!(t[1].count_ones(), stones[1].count_ones());
                assert_eq!(t[0] & t[1], 0);
                assert_eq!((t[0] | t[1]) >> 49, 0);
                seen.insert(t);
            }
            // A random board has no symmetry of its own: eight distinct images.
            assert_eq!(seen.len(), SYMMETRIES);
            // A quarter turn four times is the identity; a mirror twice.
            let quarter = (0..4).fold(stones, |b, _| symmetric(b, 5));
            assert_eq!(quarter, stones);
            assert_eq!(symmetric(symmetric(stones, 4), 4), stones);
        }
        // Each key draws the eight about equally often over positions.
        let mut count = [0usize; SYMMETRIES];
        for i in 0..80_000 {
            count[symmetry_of(77, i)] += 1;
        }
        assert!(
            count.iter().all(|&c| (9_400..10_600).contains(&c)),
            "{count:?}"
        );
        assert_ne!(
            (0..64).map(|i| symmetry_of(1, i)).collect::<Vec<_>>(),
            (0..64).map(|i| symmetry_of(2, i)).collect::<Vec<_>>()
        );
    }
}
