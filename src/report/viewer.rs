//! The game viewer of `report.html`: pick a game (filtered by pairing and result), step
//! through it move by move on an SVG board, with what the mover reported for each move
//! (depth, nodes, score, time).
//!
//! Everything is in the page: the board is inline SVG drawn here (one stone element per
//! cell, which the script only shows, hides and colours), the games are a JSON block
//! (every `<`, `>` and `&` written as `\u003c`-style escapes, so no user string can end
//! the block or be read as markup), and a small script, inside a CDATA section so the
//! page stays well-formed XML, plays the moves. The script never parses markup: names
//! reach the page through `textContent` only. The rules used here are the game layer's:
//! moves are checked and turned into board cells in Rust; the script only places
//! stones, and for Ataxx removes a jump's origin and turns the adjacent stones. Renju
//! games also carry, per position with black to move, the cells the game layer's
//! checker finds forbidden for black ([`Mnk::forbidden`]); the script only shows the
//! crosses pre-drawn there. Nothing of that is in a gomoku or Ataxx page.

use std::fmt::Write as _;

use serde::Serialize;

use crate::{
    game::{Ataxx, AtaxxMove, Game, GameSpec, Mnk, MnkMove, MnkRule, Side},
    tournament::{GameRecord, Summary, record::score_text},
};

/// At most this many moves are embedded (a few megabytes of page); later games are left
/// out and the viewer says how many it holds.
const MAX_MOVES: usize = 120_000;

/// A viewer ready to render.
#[derive(Clone, Debug)]
pub(crate) struct Viewer {
    /// The games as JSON, escaped for the page.
    pub json: String,
    /// The board, inline SVG.
    pub board: String,
    /// Games in the viewer.
    pub shown: usize,
    /// Games in the results.
    pub total: usize,
    /// Renju: the board has forbidden-point marks and the page a legend for them.
    pub renju: bool,
}

/// The board geometry and labels the script needs.
#[derive(Serialize)]
struct Data<'a> {
    family: &'static str,
    width: usize,
    height: usize,
    engines: Vec<&'a str>,
    pairings: Vec<[usize; 2]>,
    total: usize,
    games: Vec<ViewGame>,
}

/// One game for the script. Cells are numbered row by row from the top left.
#[derive(Serialize)]
struct ViewGame {
    /// Game index.
    g: u64,
    /// Pairing index.
    p: usize,
    /// Engine playing black (first player) and white.
    b: usize,
    w: usize,
    /// Result from black's side (`1-0`: black won) and why the game ended.
    r: &'static str,
    e: String,
    /// Stones after the opening, a character per cell: `x`, `o`, `.` empty, `#` gap.
    start: String,
    /// Side to move after the opening: `x` or `o`.
    turn: char,
    /// Plies of the opening (stones already on the board).
    open: usize,
    /// Moves as [from, to] cells: from -1 for a placement or an Ataxx single, [-1, -1]
    /// for a pass.
    mv: Vec<[i32; 2]>,
    /// Each move as written in the record.
    t: Vec<String>,
    /// Per move: depth, nodes, score (a number, a "win in N plies" text, or null), time
    /// in microseconds.
    d: Vec<u32>,
    n: Vec<u64>,
    s: Vec<serde_json::Value>,
    us: Vec<u64>,
    /// An illegal last answer that lost the game (not on the board), if any.
    bad: Option<String>,
    /// Renju only (left out otherwise): per position (after the opening, then after
    /// each move), black's forbidden empty cells when black is to move, else empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    f: Vec<Vec<u16>>,
}

/// The viewer for `records` of the game `summary.game`, or `None` when the game cannot
/// be read or there are no games.
pub(crate) fn build(summary: &Summary, records: &[GameRecord]) -> Option<Viewer> {
    let spec: GameSpec = summary.game.parse().ok()?;
    if records.is_empty() {
        return None;
    }
    let mut sorted: Vec<&GameRecord> = records.iter().collect();
    sorted.sort_by_key(|r| r.game);
    let (family, width, height) = match spec {
        GameSpec::Mnk(c) => ("mnk", c.width(), c.height()),
        GameSpec::Ataxx => ("ataxx", 7, 7),
    };
    let renju = matches!(spec, GameSpec::Mnk(c) if c.rule() == MnkRule::Renju);
    let mut games = Vec::new();
    let mut moves = 0;
    for r in sorted {
        if moves + r.moves.len() > MAX_MOVES && !games.is_empty() {
            break;
        }
        let game = match spec {
            GameSpec::Mnk(c) => mnk_game(&c, r),
            GameSpec::Ataxx => ataxx_game(r),
        };
        // A record whose opening cannot be read is left out (the stats still count it).
        if let Some(g) = game {
            moves += r.moves.len();
            games.push(g);
        }
    }
    let shown = games.len();
    let data = Data {
        family,
        width,
        height,
        engines: summary.engines.iter().map(|e| e.name.as_str()).collect(),
        pairings: summary.pairings.iter().map(|p| [p.a, p.b]).collect(),
        total: records.len(),
        games,
    };
    let json = serde_json::to_string(&data).expect("viewer data serialises");
    Some(Viewer {
        json: escape_json(&json),
        board: board_svg(family, width, height, renju),
        shown,
        total: records.len(),
        renju,
    })
}

/// JSON safe inside an HTML/XML element: `<`, `>` and `&` only occur in strings, where
/// their `\u` escapes mean the same.
fn escape_json(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

fn base(r: &GameRecord, start: String, turn: Side, open: usize) -> ViewGame {
    ViewGame {
        g: r.game,
        p: r.pairing,
        b: r.black,
        w: r.white,
        r: r.result.as_str(),
        e: r.reason.clone(),
        start,
        turn: if turn == Side::First { 'x' } else { 'o' },
        open,
        mv: Vec::new(),
        t: Vec::new(),
        d: Vec::new(),
        n: Vec::new(),
        s: Vec::new(),
        us: Vec::new(),
        bad: None,
        f: Vec::new(),
    }
}

/// Adds move `i` of `r` (its text and stats) at cells `mv`.
fn push_move(g: &mut ViewGame, r: &GameRecord, i: usize, mv: [i32; 2]) {
    g.mv.push(mv);
    g.t.push(r.moves[i].clone());
    let s = r.stats.get(i);
    g.d.push(s.map_or(0, |s| s.depth));
    g.n.push(s.map_or(0, |s| s.nodes));
    g.us.push(s.map_or(0, |s| s.time_us));
    g.s.push(match s.and_then(|s| s.score) {
        None => serde_json::Value::Null,
        Some(v) => score_text::describe(v).map_or_else(|| v.into(), serde_json::Value::from),
    });
}

fn mnk_game(config: &crate::game::MnkConfig, r: &GameRecord) -> Option<ViewGame> {
    let mut pos = Mnk::from_text(config, &r.opening).ok()?;
    let start: String = pos
        .cells()
        .iter()
        .map(|&c| match c {
            1 => 'x',
            2 => 'o',
            _ => '.',
        })
        .collect();
    let mut g = base(r, start, pos.side_to_move(), pos.history().len());
    let renju = config.rule() == MnkRule::Renju;
    if renju {
        g.f.push(forbidden_cells(&pos));
    }
    for i in 0..r.moves.len() {
        match pos
            .parse_move(&r.moves[i])
            .ok()
            .filter(|&m| pos.is_legal(m))
        {
            Some(m) => {
                pos.play(m);
                push_move(&mut g, r, i, [-1, m.cell() as i32]);
                if renju {
                    g.f.push(forbidden_cells(&pos));
                }
            }
            None => {
                g.bad = Some(r.moves[i].clone());
                break;
            }
        }
    }
    Some(g)
}

/// The empty cells where black may not play in `pos` (none when white is to move or the
/// game is over; see [`Mnk::forbidden`]).
fn forbidden_cells(pos: &Mnk) -> Vec<u16> {
    if pos.side_to_move() != Side::First || pos.outcome().is_some() {
        return Vec::new();
    }
    (0..pos.cells().len() as u16)
        .filter(|&c| pos.forbidden(MnkMove(c)).is_some())
        .collect()
}

/// Ataxx square (`rank * 7 + file`, a1 = 0) as a display cell (row from the top).
fn cell_of(sq: usize) -> i32 {
    ((6 - sq / 7) * 7 + sq % 7) as i32
}

fn ataxx_game(r: &GameRecord) -> Option<ViewGame> {
    let mut pos = Ataxx::from_fen(&r.opening).ok()?;
    let mut start = vec!['.'; 49];
    for sq in 0..49 {
        let bit = 1u64 << sq;
        let c = &mut start[cell_of(sq) as usize];
        if pos.stones(Side::First) & bit != 0 {
            *c = 'x';
        } else if pos.stones(Side::Second) & bit != 0 {
            *c = 'o';
        } else if pos.gaps() & bit != 0 {
            *c = '#';
        }
    }
    let mut g = base(r, start.into_iter().collect(), pos.side_to_move(), 0);
    for i in 0..r.moves.len() {
        match pos
            .parse_move(&r.moves[i])
            .ok()
            .filter(|&m| pos.is_legal(m))
        {
            Some(m) => {
                pos.play(m);
                let cells = match m {
                    AtaxxMove::Single(t) => [-1, cell_of(usize::from(t))],
                    AtaxxMove::Jump(f, t) => [cell_of(usize::from(f)), cell_of(usize::from(t))],
                    AtaxxMove::Pass => [-1, -1],
                };
                push_move(&mut g, r, i, cells);
            }
            None => {
                g.bad = Some(r.moves[i].clone());
                break;
            }
        }
    }
    Some(g)
}

/// The board: a square per cell (`vq<i>`, Ataxx gaps darkened by the script), a stone
/// per cell (`vc<i>`, hidden until the script gives it a colour), column letters above
/// and row labels on the left (m,n,k rows count from the top, Ataxx ranks from the
/// bottom, as each game's notation does). With `renju`, a red cross per cell (`vf<i>`,
/// hidden until the script shows it on a forbidden point).
fn board_svg(family: &str, width: usize, height: usize, renju: bool) -> String {
    let cell = (480 / width.max(height)).clamp(24, 72);
    let margin = 24;
    let (w, h) = (margin + cell * width + 8, margin + cell * height + 8);
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg id=\"viewer-board\" class=\"vb {family}\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"board\">"
    );
    let _ = write!(
        out,
        "<rect x=\"{margin}\" y=\"{margin}\" width=\"{}\" height=\"{}\" class=\"bg\"/>",
        cell * width,
        cell * height
    );
    let font = (cell as f64 * 0.42).clamp(10.0, 14.0);
    for x in 0..width {
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" class=\"lbl\" font-size=\"{font}\">{}</text>",
            margin + cell * x + cell / 2,
            margin - 7,
            char::from(b'a' + x as u8)
        );
    }
    for y in 0..height {
        let label = if family == "ataxx" { height - y } else { y + 1 };
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" class=\"lbl\" font-size=\"{font}\">{label}</text>",
            margin / 2,
            margin + cell * y + cell / 2 + 4
        );
    }
    let r = cell as f64 * 0.4;
    for y in 0..height {
        for x in 0..width {
            let i = y * width + x;
            let (x0, y0) = (margin + cell * x, margin + cell * y);
            let _ = write!(
                out,
                "<rect id=\"vq{i}\" class=\"sq\" x=\"{x0}\" y=\"{y0}\" width=\"{cell}\" \
                 height=\"{cell}\"/><circle id=\"vc{i}\" class=\"st\" cx=\"{}\" cy=\"{}\" \
                 r=\"{r:.1}\"/>",
                x0 + cell / 2,
                y0 + cell / 2
            );
            if renju {
                let (a, b) = (cell as f64 * 0.32, cell as f64 * 0.68);
                let (xa, xb, ya, yb) = (x0 as f64 + a, x0 as f64 + b, y0 as f64 + a, y0 as f64 + b);
                let _ = write!(
                    out,
                    "<path id=\"vf{i}\" d=\"M{xa:.1} {ya:.1}L{xb:.1} {yb:.1}M{xb:.1} {ya:.1}L{xa:.1} \
                     {yb:.1}\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2.5\" \
                     stroke-linecap=\"round\" visibility=\"hidden\"/>"
                );
            }
        }
    }
    out.push_str("</svg>");
    out
}

/// The viewer's style sheet (inside the page's `<style>`).
pub(crate) const STYLE: &str = "
#viewer-app:focus { outline: none; }
#viewer-app .controls { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin: 8px 0; font-size: 14px; }
#viewer-app select, #viewer-app button { font-size: 14px; }
#viewer-app .cols { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
#viewer-games { min-width: 420px; max-width: 100%; }
#viewer-app .moves { max-height: 520px; overflow-y: auto; position: relative; }
#viewer-app .moves thead th { position: sticky; top: 0; }
#viewer-app .moves tr.cur td { background: #fde9c9; }
#viewer-app .moves tr { cursor: pointer; }
#viewer-info { font-size: 14px; margin: 6px 0; min-height: 1.4em; }
.vb .bg { fill: #e8c987; }
.vb.ataxx .bg { fill: #dfe6ec; }
.vb .sq { fill: none; stroke: #7a5a2a; stroke-width: 1; }
.vb.ataxx .sq { stroke: #8a99a6; }
.vb .sq.gap { fill: #55606a; }
.vb .sq.from { fill: #f0b27a; }
.vb .sq.flip { fill: #f7d9a8; }
.vb .lbl { fill: #555; text-anchor: middle; font-family: arena-noto-sans, 'Noto Sans', sans-serif; }
.vb .st { display: none; }
.vb .st.x { display: inline; fill: #1d1d1d; stroke: #000; stroke-width: 1; }
.vb .st.o { display: inline; fill: #fbfbfb; stroke: #333; stroke-width: 1.2; }
.vb .st.last { stroke: #d55e00; stroke-width: 3.5; }
";

/// The script: reads `#viewer-data`, fills the filters and the game list, plays moves.
pub(crate) const SCRIPT: &str = r#"
(function () {
  'use strict';
  var el = function (id) { return document.getElementById(id); };
  var data = JSON.parse(el('viewer-data').textContent);
  var W = data.width, H = data.height, ataxx = data.family === 'ataxx';
  var pairingSel = el('viewer-pairing'), resultSel = el('viewer-result');
  var gameSel = el('viewer-games'), slider = el('viewer-ply');
  var game = null, boards = [], flips = [], ply = 0;

  function option(sel, value, text) {
    var o = document.createElement('option');
    o.value = String(value);
    o.textContent = text;
    sel.appendChild(o);
  }
  function name(i) { return data.engines[i] === undefined ? '?' : data.engines[i]; }
  function resultText(r) {
    return r === '1-0' ? 'black won' : r === '0-1' ? 'white won' : 'draw';
  }

  option(pairingSel, -1, 'all pairings');
  data.pairings.forEach(function (p, i) { option(pairingSel, i, name(p[0]) + ' vs ' + name(p[1])); });
  option(resultSel, '', 'all results');
  option(resultSel, '1-0', '1-0 (black won)');
  option(resultSel, '0-1', '0-1 (white won)');
  option(resultSel, '1/2-1/2', 'draws');

  function fillGames(keep) {
    var p = Number(pairingSel.value), r = resultSel.value;
    while (gameSel.firstChild) { gameSel.removeChild(gameSel.firstChild); }
    var first = null, kept = false;
    data.games.forEach(function (g, i) {
      if ((p >= 0 && g.p !== p) || (r && g.r !== r)) { return; }
      option(gameSel, i, 'game ' + g.g + ': ' + name(g.b) + ' (black) vs ' + name(g.w) +
        ' (white), ' + g.r + ' (' + resultText(g.r) + ', ' + g.e + '), ' + g.mv.length +
        ' moves');
      if (first === null) { first = i; }
      if (i === keep) { kept = true; }
    });
    el('viewer-count').textContent = gameSel.options.length + ' of ' + data.total + ' games';
    var pick = kept ? keep : first;
    if (pick === null) { game = null; draw(); return; }
    gameSel.value = String(pick);
    load(pick, 0);
  }

  function apply(board, m, side) {
    var flipped = [];
    if (m[1] < 0) { return flipped; }
    board[m[1]] = side;
    if (m[0] >= 0) { board[m[0]] = '.'; }
    if (ataxx) {
      var other = side === 'x' ? 'o' : 'x', x = m[1] % W, y = (m[1] - x) / W;
      for (var dy = -1; dy <= 1; dy++) {
        for (var dx = -1; dx <= 1; dx++) {
          var nx = x + dx, ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= W || ny >= H) { continue; }
          var n = ny * W + nx;
          if (board[n] === other) { board[n] = side; flipped.push(n); }
        }
      }
    }
    return flipped;
  }

  function load(index, at) {
    game = data.games[index];
    boards = [game.start.split('')];
    flips = [[]];
    var side = game.turn;
    game.sides = [];
    game.mv.forEach(function (m) {
      var b = boards[boards.length - 1].slice();
      flips.push(apply(b, m, side));
      boards.push(b);
      game.sides.push(side);
      side = side === 'x' ? 'o' : 'x';
    });
    slider.max = String(game.mv.length);
    moveTable();
    ply = Math.max(0, Math.min(at, game.mv.length));
    draw();
  }

  function moveTable() {
    var body = el('viewer-moves');
    while (body.firstChild) { body.removeChild(body.firstChild); }
    game.mv.forEach(function (m, i) {
      var tr = document.createElement('tr');
      var side = game.sides[i];
      var score = game.s[i] === null ? '-' : typeof game.s[i] === 'number' ?
        (game.s[i] > 0 ? '+' : '') + game.s[i] : game.s[i];
      [String(i + 1), side === 'x' ? 'black' : 'white',
       name(side === 'x' ? game.b : game.w), game.t[i], String(game.d[i]),
       String(game.n[i]), score, (game.us[i] / 1000).toFixed(1)].forEach(function (text, c) {
        var td = document.createElement('td');
        td.textContent = text;
        if (c > 0 && c < 4) { td.className = 't'; }
        tr.appendChild(td);
      });
      tr.addEventListener('click', function () { go(i + 1); });
      body.appendChild(tr);
    });
  }

  function draw() {
    var board = game ? boards[ply] : null;
    var last = game && ply > 0 ? game.mv[ply - 1] : null;
    var flipped = game ? flips[ply] : [];
    for (var i = 0; i < W * H; i++) {
      var c = board ? board[i] : '.';
      var st = el('vc' + i), sq = el('vq' + i);
      var cls = 'st';
      if (c === 'x' || c === 'o') { cls += ' ' + c; }
      if (last && last[1] === i) { cls += ' last'; }
      st.setAttribute('class', cls);
      var sqc = 'sq';
      if (c === '#') { sqc += ' gap'; }
      if (last && last[0] === i) { sqc += ' from'; }
      if (flipped.indexOf(i) >= 0) { sqc += ' flip'; }
      sq.setAttribute('class', sqc);
    }
    var info = el('viewer-info');
    if (!game) { info.textContent = 'No game matches these filters.'; return; }
    slider.value = String(ply);
    var rows = el('viewer-moves').children;
    for (var r = 0; r < rows.length; r++) { rows[r].className = r === ply - 1 ? 'cur' : ''; }
    // Keep the current move in sight inside the table's own scroll box (never scroll
    // the page: the board would jump away under the buttons).
    var cur = rows[ply - 1], box = el('viewer-movebox');
    if (cur) {
      var head = box.querySelector('thead').offsetHeight;
      if (cur.offsetTop - head < box.scrollTop) {
        box.scrollTop = cur.offsetTop - head;
      } else if (cur.offsetTop + cur.offsetHeight > box.scrollTop + box.clientHeight) {
        box.scrollTop = cur.offsetTop + cur.offsetHeight - box.clientHeight;
      }
    } else {
      box.scrollTop = 0;
    }
    var text = 'game ' + game.g + ', ' + name(game.b) + ' (black) vs ' + name(game.w) + ' (white): ';
    if (ply === 0) {
      text += 'start' + (game.open ? ' after ' + game.open + ' opening plies' : '') + ', ' +
        (game.turn === 'x' ? 'black' : 'white') + ' to move';
    } else {
      text += 'move ' + ply + ' of ' + game.mv.length + ', ' + game.t[ply - 1] + ' by ' +
        (game.sides[ply - 1] === 'x' ? 'black' : 'white') + ' (depth ' + game.d[ply - 1] +
        ', nodes ' + game.n[ply - 1] + ')';
    }
    if (ply === game.mv.length) {
      text += '; ' + game.r + ' (' + resultText(game.r) + ', ' + game.e + ')';
      if (game.bad !== null) { text += ', after the illegal answer ' + game.bad; }
    }
    info.textContent = text;
    el('viewer-board').setAttribute('data-ply', String(ply));
    if (window.history && history.replaceState) {
      history.replaceState(null, '', '#game=' + game.g + '&ply=' + ply);
    }
  }

  function go(p) {
    if (!game) { return; }
    ply = Math.max(0, Math.min(p, game.mv.length));
    draw();
  }

  el('viewer-first').addEventListener('click', function () { go(0); });
  el('viewer-prev').addEventListener('click', function () { go(ply - 1); });
  el('viewer-next').addEventListener('click', function () { go(ply + 1); });
  el('viewer-last').addEventListener('click', function () { go(Infinity); });
  slider.addEventListener('input', function () { go(Number(slider.value)); });
  pairingSel.addEventListener('change', function () { fillGames(-1); });
  resultSel.addEventListener('change', function () { fillGames(-1); });
  gameSel.addEventListener('change', function () { load(Number(gameSel.value), 0); });
  // The keys work anywhere in the viewer (it takes the focus when clicked, or when a
  // link opens a position); the game list keeps its own arrow keys. The heading above
  // is `#viewer`, so the viewer's box has its own id.
  var app = el('viewer-app');
  app.addEventListener('keydown', function (e) {
    if (e.target === gameSel) { return; }
    var keys = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: Infinity };
    if (e.key in keys) { go(keys[e.key]); e.preventDefault(); }
  });
  app.addEventListener('click', function (e) {
    var t = e.target.tagName;
    if (t !== 'SELECT' && t !== 'OPTION' && t !== 'INPUT') { app.focus({ preventScroll: true }); }
  });

  // A link to a game and move: report.html#game=12&ply=30 selects it and scrolls the
  // viewer into view.
  function follow() {
    var want = /game=(\d+)(?:&ply=(\d+))?/.exec(location.hash);
    var start = -1;
    if (want) {
      data.games.forEach(function (g, i) { if (String(g.g) === want[1]) { start = i; } });
    }
    fillGames(start);
    if (start >= 0) {
      go(want[2] ? Number(want[2]) : 0);
      (document.getElementById('viewer') || app).scrollIntoView({ block: 'start' });
      app.focus({ preventScroll: true });
    }
  }
  window.addEventListener('hashchange', function () {
    if (/game=/.test(location.hash) && location.hash !== '#game=' + (game ? game.g : '') + '&ply=' + ply) {
      follow();
    }
  });
  follow();
})();
"#;

/// Where the renju pages' script shows the forbidden-point marks: in `draw`, after the
/// loop over the cells (the gomoku and Ataxx pages keep [`SCRIPT`] as it is).
const MARKS_AFTER: &str = "      sq.setAttribute('class', sqc);\n    }\n";

/// The renju pages' addition to `draw`: a cross on each of the position's forbidden
/// points (`f`, from Rust), every other cross hidden.
const MARKS: &str = "    var fb = game ? game.f[ply] : [];
    for (var j = 0; j < W * H; j++) {
      el('vf' + j).setAttribute('visibility', fb.indexOf(j) >= 0 ? 'visible' : 'hidden');
    }
";

/// The script for `v`'s page: [`SCRIPT`], and on renju pages [`MARKS`] in `draw`.
fn script(v: &Viewer) -> String {
    if v.renju {
        SCRIPT.replacen(MARKS_AFTER, &format!("{MARKS_AFTER}{MARKS}"), 1)
    } else {
        SCRIPT.to_string()
    }
}

/// The viewer's markup: filters, game list, controls, board, move table, the data and
/// the script.
pub(crate) fn html(v: &Viewer, note: &str) -> String {
    let legend = if v.renju {
        // Inline style: the shared style sheet stays as the other pages have it.
        "<p style=\"font-size: 13px; margin: 4px 0;\"><span style=\"color: #d62728; \
         font-weight: bold;\">\u{d7}</span> black's forbidden points (renju)</p>"
    } else {
        ""
    };
    let script = script(v);
    let mut out = String::new();
    let _ = write!(
        out,
        "<div id=\"viewer-app\" tabindex=\"-1\">\n<noscript><p>The game viewer needs JavaScript.</p></noscript>\n\
         <p>{note}</p>\n\
         <div class=\"controls\"><label>pairing <select id=\"viewer-pairing\"></select></label>\
         <label>result <select id=\"viewer-result\"></select></label>\
         <span id=\"viewer-count\"></span></div>\n\
         <div class=\"controls\"><select id=\"viewer-games\" size=\"6\" aria-label=\"games\"></select></div>\n\
         <div class=\"controls\"><button id=\"viewer-first\" type=\"button\" title=\"start (Home)\">|&lt;</button>\
         <button id=\"viewer-prev\" type=\"button\" title=\"back (left arrow)\">&lt;</button>\
         <button id=\"viewer-next\" type=\"button\" title=\"forward (right arrow)\">&gt;</button>\
         <button id=\"viewer-last\" type=\"button\" title=\"end (End)\">&gt;|</button>\
         <input id=\"viewer-ply\" type=\"range\" min=\"0\" max=\"0\" value=\"0\" aria-label=\"move\"/></div>\n\
         <div id=\"viewer-info\"></div>\n\
         <div class=\"cols\"><div>{}{legend}</div>\n\
         <div id=\"viewer-movebox\" class=\"moves\"><table><thead><tr><th>#</th><th class=\"t\">side</th>\
         <th class=\"t\">engine</th><th class=\"t\">move</th><th>depth</th><th>nodes</th>\
         <th>score</th><th>ms</th></tr></thead><tbody id=\"viewer-moves\"></tbody></table></div></div>\n\
         <script type=\"application/json\" id=\"viewer-data\">{}</script>\n\
         <script>//<![CDATA[{script}//]]></script>\n</div>",
        v.board, v.json
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{game::MnkConfig, tournament::record::GameResult};

    fn record(config: MnkConfig, opening: &str, moves: &[&str]) -> GameRecord {
        let variant = Some(GameSpec::Mnk(config));
        GameRecord::for_tests(variant, opening, moves, None, GameResult::Draw, "max-plies")
    }

    /// Black g8 h8 (a row) and i6 i7 (a column), white in the corners: i8 makes two
    /// open threes at once, so it is forbidden for black. Cell = row * 15 + column.
    const OPENING: &str = "g8a1h8a15i6o1i7o15";
    const I8: u16 = 7 * 15 + 8;

    fn json(config: MnkConfig) -> serde_json::Value {
        let r = record(config, OPENING, &["c13", "m3", "m13"]);
        serde_json::to_value(mnk_game(&config, &r).expect("the record reads")).unwrap()
    }

    #[test]
    fn renju_positions_carry_blacks_forbidden_points() {
        let g = json(MnkConfig::renju());
        let f = g["f"].as_array().expect("renju games carry f");
        // The start (black to move), then after each of the three moves.
        assert_eq!(f.len(), 4);
        let at = |ply: usize| -> Vec<u64> {
            f[ply]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_u64().unwrap())
                .collect()
        };
        assert!(at(0).contains(&u64::from(I8)), "{:?}", at(0));
        // White to move after black's c13: no marks.
        assert!(at(1).is_empty());
        assert!(at(2).contains(&u64::from(I8)), "{:?}", at(2));
        assert!(at(3).is_empty());
        // The marks are exactly what the game layer's checker says.
        let pos = Mnk::from_text(&MnkConfig::renju(), OPENING).unwrap();
        assert_eq!(
            pos.forbidden(MnkMove(I8)),
            Some(crate::game::renju::Forbidden::DoubleThree)
        );
        let want: Vec<u64> = (0..225u16)
            .filter(|&c| pos.forbidden(MnkMove(c)).is_some())
            .map(u64::from)
            .collect();
        assert_eq!(at(0), want);
    }

    #[test]
    fn a_finished_game_shows_no_marks_though_black_is_to_move() {
        // OPENING's black stones (i8 forbidden) and white on b1-b4; black plays m13 and
        // white's b5 makes five: black would be to move, but the game is over.
        let r = record(MnkConfig::renju(), "g8b1h8b2i6b3i7b4", &["m13", "b5"]);
        let g = serde_json::to_value(mnk_game(&MnkConfig::renju(), &r).unwrap()).unwrap();
        let f = g["f"].as_array().unwrap();
        assert_eq!(f.len(), 3);
        assert!(
            f[0].as_array().unwrap().contains(&serde_json::json!(I8)),
            "{f:?}"
        );
        assert!(f[2].as_array().unwrap().is_empty(), "{f:?}");
    }

    #[test]
    fn freestyle_games_carry_no_forbidden_points() {
        let g = json(MnkConfig::gomoku());
        assert!(g.get("f").is_none(), "{g}");
        assert_eq!(g["mv"].as_array().unwrap().len(), 3);
    }

    #[test]
    fn only_renju_pages_get_marks_and_the_legend() {
        let viewer = |renju| Viewer {
            json: "{}".into(),
            board: board_svg("mnk", 15, 15, renju),
            shown: 0,
            total: 0,
            renju,
        };
        let (plain, renju) = (html(&viewer(false), ""), html(&viewer(true), ""));
        assert!(!plain.contains("vf0") && !plain.contains("forbidden"));
        assert!(plain.contains(SCRIPT));
        assert_eq!(SCRIPT.matches(MARKS_AFTER).count(), 1);
        assert!(renju.contains("id=\"vf224\"") && renju.contains(MARKS));
        assert!(renju.contains("\u{d7}</span> black's forbidden points (renju)</p>"));
    }
}
