//! Move ordering at a node: one 64-bit key per move, so comparing two moves is one
//! integer comparison, and a lazy pick that selects the first few moves and sorts the
//! rest only when the node needs them.

/// Packs the ordering of a move: class (threat / singles-first), killer slot, static
/// score, history, and generation order to break ties (earlier first), most significant
/// first. Key 0 is kept for pruned moves; `u64::MAX` for the table's move.
///
/// Bits: class 6 (clamped to -31..=30, so no key reaches `u64::MAX`), killer 2, score 26 (clamped to ±2^25), history 20
/// (clamped to 0..2^20), order 10 (generation index, at most 1023 moves).
#[inline]
pub fn sort_key(class: i32, killer: u8, score: i32, history: i32, index: usize) -> u64 {
    let class = (class.clamp(-31, 30) + 32) as u64;
    let score = (score.clamp(-(1 << 25), (1 << 25) - 1) + (1 << 25)) as u64;
    let history = history.clamp(0, (1 << 20) - 1) as u64;
    let order = (0x3FF - index.min(0x3FE)) as u64;
    (class << 58) | (u64::from(killer & 3) << 56) | (score << 30) | (history << 10) | order
}

/// Moves picked one by one (selection) before the rest of the list is sorted at once:
/// most cutoffs come from the first moves.
const SELECT_FIRST: usize = 3;

/// Puts the `i`-th best move at position `i` and returns it; `None` past the end or when
/// only pruned moves (key 0) remain. Call with `i` = 0, 1, 2, ... in turn.
#[inline]
pub fn pick<M: Copy>(ordered: &mut [(u64, M)], i: usize) -> Option<M> {
    let n = ordered.len();
    if i >= n {
        return None;
    }
    if i < SELECT_FIRST {
        let mut best = i;
        for j in i + 1..n {
            if ordered[j].0 > ordered[best].0 {
                best = j;
            }
        }
        ordered.swap(i, best);
    } else if i == SELECT_FIRST {
        ordered[i..].sort_unstable_by_key(|&(key, _)| std::cmp::Reverse(key));
    }
    let (key, mv) = ordered[i];
    (key != 0).then_some(mv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_order_by_fields_in_precedence() {
        let base = sort_key(0, 0, 0, 0, 5);
        assert!(sort_key(1, 0, -1000, 0, 9) > sort_key(0, 2, 1000, 900, 0));
        assert!(sort_key(0, 1, -1000, 0, 9) > sort_key(0, 0, 1000, 900, 0));
        assert!(sort_key(0, 0, 7, 0, 9) > sort_key(0, 0, 6, 900, 0));
        assert!(sort_key(0, 0, 0, 3, 9) > sort_key(0, 0, 0, 2, 0));
        assert!(sort_key(0, 0, 0, 0, 4) > base);
        assert!(sort_key(-31, 0, -(1 << 26), 0, 1022) > 0);
        assert!(sort_key(31, 3, 1 << 26, 1 << 22, 0) < u64::MAX);
    }

    #[test]
    fn pick_yields_descending_keys_then_stops_at_pruned() {
        let mut v: Vec<(u64, u32)> = vec![(5, 0), (9, 1), (0, 2), (7, 3), (1, 4), (8, 5), (3, 6)];
        let mut out = Vec::new();
        let mut i = 0;
        while let Some(m) = pick(&mut v, i) {
            out.push(m);
            i += 1;
        }
        assert_eq!(out, vec![1, 5, 3, 0, 6, 4]);
    }
}
