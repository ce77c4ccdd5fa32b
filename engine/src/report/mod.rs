//! The report of a scan: the model every renderer reads ([`model`]) and the
//! category scores ([`score`]).

pub mod model;
pub mod score;

pub use model::*;
