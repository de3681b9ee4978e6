mod cancel;
mod events;
mod http;
mod resolution;
mod support;
mod tools;
