mod crash;
pub mod fixture;
mod guards;
mod outcomes;
