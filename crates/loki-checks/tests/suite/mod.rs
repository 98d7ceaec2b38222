mod compare;
mod detect;
mod go_seal;
mod integrity;
mod js_seal;
mod lint;
mod runners;
mod seal_runners;
