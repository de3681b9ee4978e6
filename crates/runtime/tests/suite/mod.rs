mod cancel;
mod driving;
mod events;
mod guardrails;
mod nesting;
mod resolution;
mod support;
mod tools;
