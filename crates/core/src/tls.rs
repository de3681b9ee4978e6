//! The process-wide TLS crypto provider (feature `tls`).

use std::sync::Once;

/// Installs ring as the process's rustls crypto provider, once, unless one is installed already.
///
/// reqwest is built with `rustls-no-provider` (aws-lc-rs, its default, compiles a large C
/// library, slow on small CI machines), so a process-wide provider must be installed before the
/// first client is built. Every crate that builds an HTTP client (providers, tools' web tools,
/// the OpenTelemetry exporter, MCP over HTTP) calls this; calling it again does nothing.
pub fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // Err means another thread installed one first: fine either way.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
    });
}
