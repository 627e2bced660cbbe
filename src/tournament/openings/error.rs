//! Why an opening line cannot be read and why a book cannot give an opening: typed, so a
//! caller can tell a bad line from a game that leaves no room, and name the file's line.

/// Why a line of an opening file cannot be read (or turned by a symmetry).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LineError {
    /// The game refuses the position (its own message).
    #[error("{0}")]
    Position(String),
    /// Gomocup offsets that do not come in pairs.
    #[error("{0} numbers: offsets come in dx,dy pairs")]
    OddOffsets(usize),
    /// An offset that is not a number.
    #[error("'{0}' is not a number")]
    NotANumber(String),
    /// An offset outside the board.
    #[error("stone {stone}: offset {dx},{dy} is outside the board")]
    Outside {
        /// The stone (1-based).
        stone: usize,
        /// Its column offset from the centre.
        dx: i32,
        /// Its row offset from the centre.
        dy: i32,
    },
    /// An offset onto a taken cell, or after the game ended.
    #[error("stone {stone}: offset {dx},{dy} ({cell}) is taken or the game is over")]
    Taken {
        /// The stone (1-based).
        stone: usize,
        /// Its column offset from the centre.
        dx: i32,
        /// Its row offset from the centre.
        dy: i32,
        /// The cell.
        cell: String,
    },
    /// An EPD line without the side to move.
    #[error("an EPD line starts with the board and the side to move")]
    EpdTooShort,
    /// An EPD line with more than two counters.
    #[error("'{0}' before the first ';': a position has two counters at most")]
    EpdCounters(String),
    /// `transform = true` on a board diagram.
    #[error("transform = true needs openings as move lists or offsets, not boards")]
    NotAMoveList,
}

/// Why an opening book cannot give an opening, or its openings cannot be played.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OpeningError {
    /// An opening of the list that cannot be read or turned.
    #[error(transparent)]
    Line(#[from] LineError),
    /// No random plies can follow this opening.
    #[error("no {plies} random plies can follow the opening '{opening}' without ending the game")]
    NoRoom {
        /// `random_plies`.
        plies: u32,
        /// The opening.
        opening: String,
    },
    /// Random openings, none of which could be drawn.
    #[error("no opening could be drawn")]
    NoneDrawn,
    /// More plies than the board has cells.
    #[error("no opening of {plies} plies: {why}; use fewer plies")]
    TooManyPlies {
        /// `plies`.
        plies: u32,
        /// Why.
        why: String,
    },
    /// The balance engine cannot be built.
    #[error("{0}")]
    Judge(String),
    /// No random opening within the balance margin.
    #[error(
        "no opening of {plies} plies within the balance margin {margin} after {tries} tries: \
         widen the margin or use fewer plies"
    )]
    OutsideMargin {
        /// `plies`.
        plies: u32,
        /// `balance_margin`.
        margin: i32,
        /// The tries made.
        tries: usize,
    },
    /// No random opening that leaves the game unfinished.
    #[error(
        "no random opening of {plies} plies leaves the game unfinished after {tries} tries: \
         use fewer plies (m,n,k stones go within {radius} of the centre: a larger radius \
         leaves more room)"
    )]
    Finished {
        /// `plies`.
        plies: u32,
        /// `radius`.
        radius: u32,
        /// The tries made.
        tries: usize,
    },
    /// More openings asked for than memory can index.
    #[error("{0} openings are too many")]
    TooMany(u64),
    /// An opening that is not a position of the game.
    #[error("opening: {0}")]
    Opening(String),
    /// Openings that leave no move to play under `max_plies`.
    #[error(
        "{} already has {plies} plies{}, and [adjudication] max_plies = {max_plies} would draw \
         every game before its first move: raise max_plies or use shorter openings",
        line.map_or("the openings".to_string(), |n| format!("opening {n}")),
        if *extra > 0 { format!(" ({} with random_plies = {extra})", plies + extra) } else { String::new() }
    )]
    MaxPlies {
        /// The opening's line in the file (None: not from a file).
        line: Option<usize>,
        /// The opening's plies.
        plies: u32,
        /// `random_plies`.
        extra: u32,
        /// `[adjudication] max_plies`.
        max_plies: u32,
    },
}
