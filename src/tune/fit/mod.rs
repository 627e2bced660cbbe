//! Texel-style fitting of table weights (`arena fit`).

pub mod features;
pub mod model;
