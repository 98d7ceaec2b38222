mod bad_input;
mod cli_agents;
mod common;
mod e2e;
mod messages;
