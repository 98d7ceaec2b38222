mod compare;
mod detect;
mod integrity;
mod runners;
mod seal_runners;
