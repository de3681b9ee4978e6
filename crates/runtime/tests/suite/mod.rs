mod cancel;
mod events;
mod nesting;
mod resolution;
mod support;
mod tools;
