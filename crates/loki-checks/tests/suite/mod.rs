mod compare;
mod detect;
mod go_seal;
mod isolate;
mod js_seal;
mod runners;
mod seal_runners;
mod splice;
