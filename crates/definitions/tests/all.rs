//! Integration tests of agentctl-definitions (one binary; modules in `suite/`).

mod suite {
    mod broken;
    mod fixtures;
    mod golden;
    mod never_panics;
}
