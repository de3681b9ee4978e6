mod cancel;
mod events;
mod guardrails;
mod nesting;
mod resolution;
mod support;
mod tools;
