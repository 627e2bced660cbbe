//! The hidden sums of an Ataxx table's `[net]` kept along the search's line (NNUE's
//! accumulators), for [`super::AtaxxEval`].

use crate::{
    eval::net::AtaxxNet,
    game::{Ataxx, Side},
};

/// The hidden sums of a net for the positions on the search's line, kept in step by
/// [`Evaluator::played`] and [`Evaluator::undone`] as NNUE's accumulators are: a move
/// changes a few squares (the destination, a jump's origin, the captured stones), so its
/// sums are its parent's plus and minus those squares' input weights, far fewer than a
/// position's stones. One level per position, with both sides' views (a null move hands
/// the move to the other side without telling the evaluator: the side to move's view
/// is then already there), each level's sums worked out at its first evaluation (many
/// positions are cut off before one).
///
/// Each level records the stones its sums belong to, and a level's sums are worked out
/// from the level below's by the squares whose stones differ, whatever move lies in
/// between; so sums are only ever used for exactly their stones, and a position the
/// top level does not describe (evaluated without `played`) is scored from scratch.
/// Integer sums: the result is exactly [`AtaxxNet::accumulate`]'s.
#[derive(Clone, Debug, Default)]
pub(super) struct Accumulators {
    /// Per level, the stones of [`Side::First`] and [`Side::Second`] it belongs to.
    stones: Vec<[u64; 2]>,
    /// Per level, whether its sums are worked out yet.
    ready: Vec<bool>,
    /// Per level, `2 · hidden` sums: from First's view (First's stones the inputs 0..49,
    /// Second's 49 + square), then from Second's. Never shrinks: the levels reuse it.
    sums: Vec<i32>,
}

impl Accumulators {
    /// Starts over at the position with `stones` (First's, Second's).
    pub(super) fn reset(&mut self, stones: [u64; 2]) {
        self.stones.clear();
        self.ready.clear();
        self.push(stones);
    }

    /// A level for the position with `stones`, its sums not yet worked out.
    #[inline]
    pub(super) fn push(&mut self, stones: [u64; 2]) {
        self.stones.push(stones);
        self.ready.push(false);
    }

    /// Drops the top level (none left: nothing to drop, and evaluations score from
    /// scratch until the next reset).
    #[inline]
    pub(super) fn pop(&mut self) {
        self.stones.pop();
        self.ready.pop();
    }

    /// The top level's sums (First's view, then Second's) when it belongs to `stones`,
    /// worked out if they are not yet; `None` when it does not (or there is none).
    #[inline]
    pub(super) fn sums(&mut self, net: &AtaxxNet, stones: [u64; 2]) -> Option<&[i32]> {
        let top = self.stones.len().checked_sub(1)?;
        if self.stones[top] != stones {
            return None;
        }
        let width = 2 * net.hidden;
        if self.sums.len() < (top + 1) * width {
            self.sums.resize((top + 1) * width, 0);
        }
        if !self.ready[top] {
            // The levels between the nearest ready one and the top are the top's
            // ancestors, not evaluated (the principal variation's nodes are not, nor the
            // root): worked out too, each from the one before, they serve the siblings
            // still to come.
            let start = (0..top).rev().find(|&k| self.ready[k]).map_or(0, |k| k + 1);
            for level in start..=top {
                self.work_out(net, level);
                self.ready[level] = true;
            }
        }
        Some(&self.sums[top * width..(top + 1) * width])
    }

    /// Works out `level`'s sums from the level below (which is ready), adding and
    /// subtracting the squares whose stones differ, or from scratch when that would
    /// take more input rows than the stones on the board (or there is no level below).
    fn work_out(&mut self, net: &AtaxxNet, level: usize) {
        let width = 2 * net.hidden;
        let target = self.stones[level];
        let from_below = level > 0 && {
            let [a, b] = self.stones[level - 1];
            (a ^ target[0]).count_ones() + (b ^ target[1]).count_ones()
                <= (target[0] | target[1]).count_ones()
        };
        let (below, sums) = self.sums.split_at_mut(level * width);
        let sums = &mut sums[..width];
        if !from_below {
            let (first, second) = sums.split_at_mut(net.hidden);
            net.accumulate(target[0], target[1], first);
            net.accumulate(target[1], target[0], second);
            return;
        }
        sums.copy_from_slice(&below[(level - 1) * width..]);
        let (first, second) = sums.split_at_mut(net.hidden);
        let [a, b] = self.stones[level - 1];
        change_side(net, first, second, a, target[0]);
        change_side(net, second, first, b, target[1]);
    }
}

/// Updates the sums from a side's own view `own` and from its opponent's `other` for
/// its stones going from `old` to `new`: a square of that side is input `sq` in its
/// own view and `49 + sq` in the opponent's.
#[inline]
fn change_side(net: &AtaxxNet, own: &mut [i32], other: &mut [i32], old: u64, new: u64) {
    let mut changed = old ^ new;
    while changed != 0 {
        let sq = changed.trailing_zeros() as usize;
        changed &= changed - 1;
        if new & (1 << sq) != 0 {
            net.add_input(own, sq);
            net.add_input(other, 49 + sq);
        } else {
            net.sub_input(own, sq);
            net.sub_input(other, 49 + sq);
        }
    }
}

/// The stones of [`Side::First`] and [`Side::Second`], as [`Accumulators`] keeps them.
#[inline]
pub(super) fn both_stones(pos: &Ataxx) -> [u64; 2] {
    [pos.stones(Side::First), pos.stones(Side::Second)]
}

#[cfg(test)]
mod tests {
    use super::super::*;

    /// A table of a few terms (with endgame changes) and a random net of `hidden`
    /// units: input weights and hidden biases within ±`max` (at most the bound a table
    /// may have), output weights anywhere within theirs.
    fn with_random_net(rng: &mut impl rand::Rng, hidden: usize, max: i32) -> AtaxxTable {
        use crate::eval::net::{INPUTS, MAX_OUTPUT};
        use rand::RngExt;
        let mut net = AtaxxNet::zero(hidden);
        let out = MAX_OUTPUT as i32;
        net.input = (0..INPUTS * hidden)
            .map(|_| rng.random_range(-max..=max))
            .collect();
        net.bias = (0..hidden).map(|_| rng.random_range(-max..=max)).collect();
        net.output = (0..hidden).map(|_| rng.random_range(-out..=out)).collect();
        net.output_endgame = (0..hidden).map(|_| rng.random_range(-out..=out)).collect();
        net.output_bias = [rng.random_range(-out..=out), rng.random_range(-out..=out)];
        net.validate().unwrap();
        let mut table = AtaxxTable {
            mobility: 3,
            hole_2: -7,
            territory: 5,
            tempo: 30,
            net: Some(net),
            ..AtaxxTable::material_only()
        };
        table.endgame.material = -40;
        table
    }

    #[test]
    fn kept_net_sums_score_exactly_as_from_scratch() {
        // Random games played and taken back as the search does: `played` after each
        // move, `undone` after each take-back, null moves behind the evaluator's back,
        // some positions left unevaluated (their levels are worked out later, or never).
        use crate::eval::net::MAX_INPUT;
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(13);
        let starts = [
            Ataxx::default(),
            Ataxx::from_text(&(), "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1").unwrap(),
            Ataxx::from_text(&(), "x5o/7/7/3x3/7/7/o5x o 0 1").unwrap(),
            // x is walled in on a1: it passes at every turn.
            Ataxx::from_text(&(), "7/7/7/7/ooo4/ooo4/xoo4 x 0 1").unwrap(),
        ];
        let mut moves = Vec::new();
        let (mut checked, mut passes, mut nulls, mut undone) = (0, 0, 0, 0);
        let mut net_scores = std::collections::HashSet::new();
        for game in 0..60 {
            let hidden = [1, 8, 32, 37][game % 4];
            // Small weights keep the units between their clips; the largest a table may
            // have push most of them to a clip and the sums to their widest.
            let max = if game % 3 == 0 { MAX_INPUT as i32 } else { 700 };
            let table = with_random_net(&mut rng, hidden, max);
            let mut e = AtaxxEval::new(&table);
            let mut pos = starts[game / 4 % starts.len()];
            e.reset(&pos);
            let mut line = Vec::new();
            for _ in 0..300 {
                let back = rng.random_range(0..100) < 30;
                if pos.outcome().is_some() || (back && !line.is_empty()) {
                    let Some((mv, before)) = line.pop() else {
                        break;
                    };
                    pos.undo(mv, before);
                    e.undone(&pos, mv);
                    undone += 1;
                } else if rng.random_range(0..100) < 5 {
                    let before = pos.play_null();
                    if pos.outcome().is_none() {
                        let want = clamp_eval(e.score(&pos));
                        assert_eq!(e.evaluate(&pos), want, "{}", pos.fen());
                        checked += 1;
                        nulls += 1;
                    }
                    pos.undo_null(before);
                } else {
                    pos.legal_moves(&mut moves);
                    let mv = moves[rng.random_range(0..moves.len())];
                    passes += usize::from(mv == AtaxxMove::Pass);
                    line.push((mv, pos.play(mv)));
                    e.played(&pos, mv);
                }
                if pos.outcome().is_none() && rng.random_range(0..100) < 70 {
                    let want = clamp_eval(e.score(&pos));
                    assert_eq!(e.evaluate(&pos), want, "{}", pos.fen());
                    checked += 1;
                    net_scores.insert(e.net_score(&pos));
                }
            }
        }
        assert!(checked > 8_000 && undone > 2_000, "{checked} {undone}");
        assert!(passes > 10 && nulls > 200, "{passes} {nulls}");
        // The net is seen to score: many different scores.
        assert!(net_scores.len() > 1_000, "{}", net_scores.len());
    }

    #[test]
    fn kept_net_sums_follow_any_stones() {
        // Levels of unrelated stones (far apart: worked out from scratch) and of a few
        // squares changed (worked out from a level below), some skipped: every level's
        // sums are the net's sums of its stones from both sides' views.
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(14);
        let table = with_random_net(&mut rng, 19, 2_000);
        let net = table.net.as_ref().unwrap();
        let mut acc = Accumulators::default();
        let mut want = vec![0; 2 * net.hidden];
        let random = |rng: &mut rand_chacha::ChaCha8Rng| {
            let a: u64 = rng.random::<u64>() & crate::game::ataxx::FULL;
            let b: u64 = rng.random::<u64>();
            [a & b, a & !b]
        };
        acc.reset(random(&mut rng));
        for _ in 0..20_000 {
            match rng.random_range(0..10) {
                0 => acc.push(random(&mut rng)),
                1..=5 => {
                    let [mut x, mut o] = *acc.stones.last().unwrap();
                    for _ in 0..rng.random_range(0..4) {
                        let bit = 1u64 << rng.random_range(0..49);
                        x &= !bit;
                        o &= !bit;
                        match rng.random_range(0..3) {
                            0 => x |= bit,
                            1 => o |= bit,
                            _ => {}
                        }
                    }
                    acc.push([x, o]);
                }
                6..=8 if acc.stones.len() > 1 => acc.pop(),
                _ => {}
            }
            if rng.random_range(0..2) == 0 {
                continue;
            }
            let [x, o] = *acc.stones.last().unwrap();
            let (first, second) = want.split_at_mut(net.hidden);
            net.accumulate(x, o, first);
            net.accumulate(o, x, second);
            assert_eq!(acc.sums(net, [x, o]).unwrap(), &want[..], "{x:#x} {o:#x}");
            // Other stones are not the top level's: no sums.
            assert_eq!(acc.sums(net, [x ^ 1, o]), None);
        }
    }

    #[test]
    fn positions_not_played_are_scored_from_scratch() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(15);
        let table = with_random_net(&mut rng, 16, 1_000);
        let mut moves = Vec::new();
        let mut game = vec![Ataxx::default()];
        while game.len() < 40 {
            let mut pos = *game.last().unwrap();
            pos.legal_moves(&mut moves);
            pos.play(moves[rng.random_range(0..moves.len())]);
            if pos.outcome().is_some() {
                break;
            }
            game.push(pos);
        }
        let want = |pos: &Ataxx| clamp_eval(AtaxxEval::new(&table).score(pos));
        // Never reset: every position from scratch.
        let mut e = AtaxxEval::new(&table);
        for pos in &game {
            assert_eq!(e.evaluate(pos), want(pos), "{}", pos.fen());
        }
        // Reset on one position, another evaluated (in either order, again and again).
        for (a, b) in game.iter().zip(game.iter().rev()) {
            e.reset(a);
            assert_eq!(e.evaluate(b), want(b), "{}", b.fen());
            assert_eq!(e.evaluate(a), want(a), "{}", a.fen());
            assert_eq!(e.evaluate(b), want(b), "{}", b.fen());
        }
        // A move played on another position than the one evaluated, and more moves taken
        // back than played.
        let (a, b) = (game[10], game[20]);
        e.reset(&a);
        let mut next = a;
        next.legal_moves(&mut moves);
        let mv = moves[0];
        next.play(mv);
        e.played(&next, mv);
        assert_eq!(e.evaluate(&b), want(&b));
        assert_eq!(e.evaluate(&next), want(&next));
        for _ in 0..3 {
            e.undone(&a, mv);
            assert_eq!(e.evaluate(&a), want(&a));
        }
        e.played(&next, mv);
        assert_eq!(e.evaluate(&next), want(&next));
    }

    #[test]
    fn a_table_without_a_net_keeps_no_sums() {
        let mut e = AtaxxEval::new(&AtaxxTable::material_only());
        let mut pos = Ataxx::default();
        e.reset(&pos);
        let mut moves = Vec::new();
        for _ in 0..10 {
            pos.legal_moves(&mut moves);
            pos.play(moves[0]);
            e.played(&pos, moves[0]);
            assert_eq!(i64::from(e.evaluate(&pos)), e.score(&pos));
        }
        assert!(e.acc.stones.is_empty() && e.acc.sums.is_empty());
    }
}
