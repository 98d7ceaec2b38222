mod detect;
mod runners;
