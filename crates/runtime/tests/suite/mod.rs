mod cancel;
mod events;
mod http;
mod nesting;
mod resolution;
mod support;
mod tools;
