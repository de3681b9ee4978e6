//! Test modules.
