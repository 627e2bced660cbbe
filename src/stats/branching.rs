//! The effective branching factor of a search: how many times more nodes each further
//! ply of iterative deepening costs, from the mean cumulative nodes per completed depth.
//! Pure numbers: the callers (reports, `arena bench`) gather the counts.

/// The depths an effective branching factor is measured over: from the shallowest depth,
/// each following depth while at least half as many moves completed it as completed the
/// shallowest one (deeper iterations reached by a few moves only would bias the mean).
pub fn depths_for_ebf(nodes_by_depth: &[(u32, u64, f64)]) -> &[(u32, u64, f64)] {
    let Some(&(d0, m0, _)) = nodes_by_depth.first() else {
        return nodes_by_depth;
    };
    let mut end = 1;
    while end < nodes_by_depth.len() {
        let (d, m, _) = nodes_by_depth[end];
        if d != d0 + end as u32 || 2 * m < m0 {
            break;
        }
        end += 1;
    }
    &nodes_by_depth[..end]
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
/// mean of `N_d / N_(d-1)` over consecutive depths, which is `(N_D / N_1)^(1 / (D - 1))`
/// from the shallowest depth 1 to the deepest depth D that at least half the moves
/// completed. None with fewer than two such depths.
pub fn effective_branching_factor(nodes_by_depth: &[(u32, u64, f64)]) -> Option<f64> {
    let used = depths_for_ebf(nodes_by_depth);
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
