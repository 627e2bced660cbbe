//! The m,n,k board's cells and lines: what the rules ([`super`]) and renju's checker
//! ([`crate::game::renju`]) both stand on, so neither needs the other for it.

/// Largest supported board side (Gomocup's 20×20).
pub const MAX_SIDE: u8 = 20;
/// Largest number of cells.
pub const MAX_CELLS: usize = MAX_SIDE as usize * MAX_SIDE as usize;

/// The four line directions as (dx, dy): horizontal, vertical, diagonal, anti-diagonal.
pub const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// What occupies a cell: 0 empty, 1 the first player's stone, 2 the second's.
pub type Cell = u8;
/// An empty cell.
pub const EMPTY: Cell = 0;
