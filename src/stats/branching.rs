//! The effective branching factor of a search: how many times more nodes each further
//! ply of iterative deepening costs, from the mean cumulative nodes per completed depth.
//! Pure numbers: the callers (reports, `arena bench`) gather the counts.

/// The depths an effective branching factor is measured over, as indices into
/// `nodes_by_depth`: from the first depth whose count is below the next one's (a count
/// that does not grow is not the cost of a deeper iteration: Autaxx reports more nodes at
/// depth 1 than at depth 2, and an EBF based on its depth 1 would flatter it), each
/// following depth while at least half as many moves completed it as completed the first
/// one used (deeper iterations reached by a few moves only would bias the mean).
pub fn ebf_span(nodes_by_depth: &[(u32, u64, f64)]) -> std::ops::Range<usize> {
    let consecutive = |i: usize| nodes_by_depth[i + 1].0 == nodes_by_depth[i].0 + 1;
    let mut start = 0;
    while start + 1 < nodes_by_depth.len()
        && consecutive(start)
        && nodes_by_depth[start].2 >= nodes_by_depth[start + 1].2
    {
        start += 1;
    }
    let Some(&(_, m0, _)) = nodes_by_depth.get(start) else {
        return 0..0;
    };
    let mut end = start + 1;
    while end < nodes_by_depth.len() && consecutive(end - 1) && 2 * nodes_by_depth[end].1 >= m0 {
        end += 1;
    }
    start..end
}

/// The deepest depth worth showing of a search: the deepest that at least a tenth as many
/// moves completed as completed the shallowest one. In a position already decided every
/// iteration costs next to nothing, so a few moves run on to the engine's last depth
/// (255, or an outside engine's own limit); a table or an axis out to there would spread
/// a few moves over hundreds of depths and squeeze the ones that say how the engine
/// searches. None without depths.
pub fn deepest_shown(nodes_by_depth: &[(u32, u64, f64)]) -> Option<u32> {
    let &(d0, m0, _) = nodes_by_depth.first()?;
    Some(
        nodes_by_depth
            .iter()
            .filter(|&&(_, m, _)| 10 * m >= m0)
            .map(|&(d, _, _)| d)
            .max()
            .unwrap_or(d0),
    )
}

/// The deepest depth worth showing of several searches (a report's engines): the
/// deepest [`deepest_shown`] of any of them, so one table or axis holds them all.
pub fn deepest_shown_of<'a>(
    searches: impl IntoIterator<Item = &'a [(u32, u64, f64)]>,
) -> Option<u32> {
    searches.into_iter().filter_map(deepest_shown).max()
}

/// The effective branching factor of a search from its mean cumulative nodes per depth
/// (`(depth, moves, mean nodes)` as in `summary.json`'s `nodes_by_depth`): the geometric
/// mean of `N_d / N_(d-1)` over consecutive depths, which is `(N_D / N_F)^(1 / (D - F))`
/// from the first depth F whose count grows (depth 1 in arena's engines) to the deepest
/// depth D that at least half of F's moves completed ([`ebf_span`]). None with fewer than
/// two such depths.
pub fn effective_branching_factor(nodes_by_depth: &[(u32, u64, f64)]) -> Option<f64> {
    let used = &nodes_by_depth[ebf_span(nodes_by_depth)];
    let (&(d1, _, n1), &(dd, _, nd)) = (used.first()?, used.last()?);
    if dd <= d1 || n1 <= 0.0 || nd <= 0.0 {
        return None;
    }
    Some((nd / n1).powf(1.0 / f64::from(dd - d1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ebf_known_answers() {
        // 10, 40, 160 nodes: each depth costs four times the one before.
        let by_depth = [(1, 10, 10.0), (2, 10, 40.0), (3, 10, 160.0)];
        let ebf = effective_branching_factor(&by_depth).unwrap();
        assert!((ebf - 4.0).abs() < 1e-12, "{ebf}");
        // A depth only 2 of 10 moves reached is left out.
        let by_depth = [(1, 10, 10.0), (2, 10, 90.0), (3, 2, 5000.0)];
        let ebf = effective_branching_factor(&by_depth).unwrap();
        assert!((ebf - 9.0).abs() < 1e-12, "{ebf}");
        assert_eq!(effective_branching_factor(&[(1, 5, 30.0)]), None);
        // A first depth that counts more than the second (as Autaxx reports) is left out:
        // 100, 300, 900 from depth 2 on is an EBF of 3, not (900 / 503)^(1/3).
        let by_depth = [
            (1, 10, 503.0),
            (2, 10, 100.0),
            (3, 10, 300.0),
            (4, 10, 900.0),
        ];
        assert_eq!(ebf_span(&by_depth), 1..4);
        let ebf = effective_branching_factor(&by_depth).unwrap();
        assert!((ebf - 3.0).abs() < 1e-12, "{ebf}");
        // Counts that never grow (a decided position) give no EBF.
        let by_depth = [(1, 10, 50.0), (2, 10, 50.0), (3, 10, 40.0)];
        assert_eq!(effective_branching_factor(&by_depth), None);
        // A gap in the depths ends the span.
        let by_depth = [(1, 10, 10.0), (2, 10, 40.0), (4, 10, 640.0)];
        assert_eq!(ebf_span(&by_depth), 0..2);
        assert_eq!(effective_branching_factor(&[]), None);
    }

    #[test]
    fn deepest_shown_leaves_out_depths_few_moves_reached() {
        // 100 moves; 10 reach depth 3 (a tenth: shown), 9 depth 4, 5 depth 255.
        let by_depth = [
            (1, 100, 10.0),
            (2, 60, 40.0),
            (3, 10, 160.0),
            (4, 9, 300.0),
            (255, 5, 400.0),
        ];
        assert_eq!(deepest_shown(&by_depth), Some(3));
        // Not only a prefix: a tenth anywhere counts.
        let by_depth = [(1, 100, 10.0), (2, 5, 40.0), (3, 10, 160.0)];
        assert_eq!(deepest_shown(&by_depth), Some(3));
        assert_eq!(deepest_shown(&[(2, 4, 9.0)]), Some(2));
        assert_eq!(deepest_shown(&[]), None);
    }
}
