//! `cargo fptune`: finds the lowest floating-point precision of each knob of a Rust crate that
//! keeps its checked results to a required number of digits, validating every candidate with
//! discrete stochastic arithmetic. See ARCHITECTURE.md for how the modules fit together.

pub mod model;

pub mod cli;
pub mod exit;
pub mod console;
pub mod convert;
pub mod lab;
pub mod report;
pub mod outdir;
pub mod apply;
pub mod mark;
pub mod config;
pub mod knobs;
pub mod workspace;

pub mod cargo;
pub mod process;
pub mod scratch;
pub mod rundir;

pub mod probe;
pub mod splice;
pub mod leaves;
pub mod typing;
pub mod elaborate;
pub mod naming;
pub mod heal;
pub mod conversion;
pub mod auto;
pub mod sources;
pub mod setup;
pub mod validate;

pub mod cache;
pub mod search;
pub mod screen;

pub mod batch;
pub mod chart;
