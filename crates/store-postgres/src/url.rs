//! PostgreSQL connection URLs: what agentctl accepts, the TLS policy, and the password kept
//! out of every label and message.
//!
//! A URL is `postgres://USER:PASSWORD@HOST:PORT/DATABASE?PARAMS` (or `postgresql://`). The
//! parameters are tokio-postgres's (`sslmode`, `connect_timeout`, `application_name`,
//! `options`, …) plus two of libpq's that tokio-postgres does not know:
//!
//! * `sslmode=verify-ca` and `verify-full` mean `require`: agentctl verifies the server's
//!   certificate and name whenever it speaks TLS, against the system's trust store;
//! * `sslrootcert=FILE` adds the PEM certificates of FILE to that trust store (a private CA).
//!
//! Without `sslmode`, a server on a loopback address or a Unix socket is reached without TLS
//! (nothing to protect on the machine itself, and Debian's default cluster has a self-signed
//! certificate), any other with TLS when it offers it (`prefer`). `PGUSER` and `PGPASSWORD`
//! fill a URL that names no user or password, so the password can stay out of settings files.

use agentctl_store::ContextError;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use std::net::IpAddr;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
use tokio_postgres::config::{Host, SslMode};

/// What replaces a password in labels and messages.
const MASK: &str = "***";

/// How long connecting to the server may take when the URL does not say
/// (`connect_timeout`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a statement waits for a lock (another process's turn on the same session) before
/// it fails: the same bound as the SQLite store's busy timeout.
const LOCK_TIMEOUT_MS: u64 = 30_000;

/// A parsed `postgres://` URL.
#[derive(Clone)]
pub(crate) struct PgUrl {
    pub(crate) config: tokio_postgres::Config,
    /// The URL without its password or parameters: what errors and listings show.
    pub(crate) label: String,
    /// The password, to mask wherever a message might echo it.
    pub(crate) password: Option<String>,
    /// PEM file of extra trusted certificates (`sslrootcert`).
    root_certs: Option<PathBuf>,
}

impl std::fmt::Debug for PgUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgUrl")
            .field("label", &self.label)
            .finish_non_exhaustive()
    }
}

/// True for the URLs the PostgreSQL store takes: `postgres://…` or `postgresql://…`.
///
/// ```
/// assert!(agentctl_store_postgres::is_postgres_url("postgres://db.internal/agentctl"));
/// assert!(agentctl_store_postgres::is_postgres_url("PostgreSQL://localhost"));
/// assert!(!agentctl_store_postgres::is_postgres_url("sqlite:///tmp/sessions.db"));
/// ```
pub fn is_postgres_url(text: &str) -> bool {
    let lower = text.trim_start().to_ascii_lowercase();
    lower.starts_with("postgres://") || lower.starts_with("postgresql://")
}

/// `text` with the password of a URL in it masked: the user-info password
/// (`postgres://me:secret@host` → `postgres://me:***@host`) and a `password=` parameter.
/// Anything else is left as it is, so this is safe on any string shown to a person.
///
/// ```
/// use agentctl_store_postgres::mask_url;
/// assert_eq!(mask_url("postgres://me:s3cret@db:5432/app"), "postgres://me:***@db:5432/app");
/// assert_eq!(mask_url("postgres://db/app?sslmode=require&password=s3cret"), "postgres://db/app?sslmode=require&password=***");
/// assert_eq!(mask_url("postgres://me@db/app"), "postgres://me@db/app");
/// assert_eq!(mask_url("/home/me/sessions.db"), "/home/me/sessions.db");
/// ```
pub fn mask_url(text: &str) -> String {
    let Some(scheme_end) = text.find("://") else {
        return text.to_owned();
    };
    let start = scheme_end + 3;
    let rest = &text[start..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let mut out = text[..start].to_owned();
    match authority.rfind('@') {
        Some(at) => {
            let userinfo = &authority[..at];
            match userinfo.find(':') {
                Some(colon) => {
                    out.push_str(&userinfo[..colon]);
                    out.push(':');
                    out.push_str(MASK);
                }
                None => out.push_str(userinfo),
            }
            out.push_str(&authority[at..]);
        }
        None => out.push_str(authority),
    }
    let tail = &rest[authority_end..];
    match tail.split_once('?') {
        Some((path, query)) => {
            out.push_str(path);
            out.push('?');
            let params: Vec<String> = query
                .split('&')
                .map(|param| match param.split_once('=') {
                    Some((key, _)) if key.eq_ignore_ascii_case("password") => {
                        format!("{key}={MASK}")
                    }
                    _ => param.to_owned(),
                })
                .collect();
            out.push_str(&params.join("&"));
        }
        None => out.push_str(tail),
    }
    out
}

/// A configuration error about a URL; the URL in it is masked.
fn invalid(url: &str, message: impl Into<String>) -> ContextError {
    ContextError::Backend {
        store: mask_url(url),
        message: message.into(),
        retryable: false,
    }
}

impl PgUrl {
    /// Parses `url`, applying the defaults and environment described in the module docs.
    pub(crate) fn parse(url: &str) -> Result<Self, ContextError> {
        Self::parse_with_env(url, |name| std::env::var(name).ok())
    }

    pub(crate) fn parse_with_env(
        url: &str,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ContextError> {
        let url = url.trim();
        if !is_postgres_url(url) {
            return Err(invalid(
                url,
                "not a PostgreSQL URL: expected postgres://USER@HOST:PORT/DATABASE",
            ));
        }
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let params = Params::split(url, query)?;
        let rebuilt = if params.kept.is_empty() {
            base.to_owned()
        } else {
            format!("{base}?{}", params.kept.join("&"))
        };
        let mut config = tokio_postgres::Config::from_str(&rebuilt).map_err(|error| {
            invalid(
                url,
                format!("invalid PostgreSQL URL: {}", mask_url(&error.to_string())),
            )
        })?;
        credentials_from_env(&mut config, url, env)?;
        with_defaults(&mut config, params.ssl_mode);
        let password = config
            .get_password()
            .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
            .filter(|password| !password.is_empty());
        Ok(Self {
            label: label(&config),
            password,
            root_certs: params.root_certs,
            config,
        })
    }

    /// `message` with the password masked wherever it appears.
    pub(crate) fn mask(&self, message: &str) -> String {
        let masked = mask_url(message);
        match &self.password {
            // A one- or two-letter password would mask letters of every word.
            Some(password) if password.len() >= 3 => masked.replace(password.as_str(), MASK),
            _ => masked,
        }
    }

    /// How connections are made: in the clear for `sslmode=disable`, else through rustls.
    pub(crate) fn connector(&self) -> Result<Connector, ContextError> {
        Ok(match self.config.get_ssl_mode() {
            SslMode::Disable => Connector::Plain,
            _ => Connector::Rustls(self.tls()?),
        })
    }

    /// The TLS connector: rustls with ring, the system's trust store plus `sslrootcert`.
    fn tls(&self) -> Result<tokio_postgres_rustls::MakeRustlsConnect, ContextError> {
        let fail = |message: String| ContextError::Backend {
            store: self.label.clone(),
            message,
            retryable: false,
        };
        let mut extra = Vec::new();
        if let Some(path) = &self.root_certs {
            let certs = CertificateDer::pem_file_iter(path).map_err(|error| {
                fail(format!(
                    "cannot read sslrootcert {}: {error}",
                    path.display()
                ))
            })?;
            for cert in certs {
                extra.push(cert.map_err(|error| {
                    fail(format!(
                        "sslrootcert {} is not a PEM certificate file: {error}",
                        path.display()
                    ))
                })?);
            }
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier =
            rustls_platform_verifier::Verifier::new_with_extra_roots(extra, provider.clone())
                .map_err(|error| fail(format!("cannot load the system's certificates: {error}")))?;
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|error| fail(format!("TLS setup: {error}")))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth();
        Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
    }
}

/// A URL's query parameters: the TLS ones agentctl reads itself, and the rest for the driver.
struct Params<'a> {
    /// The parameters the driver parses.
    kept: Vec<&'a str>,
    ssl_mode: Option<SslMode>,
    root_certs: Option<PathBuf>,
}

impl<'a> Params<'a> {
    /// Splits `query` (of `url`, named in errors); refuses the parameters agentctl does not
    /// support.
    fn split(url: &str, query: &'a str) -> Result<Self, ContextError> {
        let mut params = Params {
            kept: Vec::new(),
            ssl_mode: None,
            root_certs: None,
        };
        for param in query.split('&').filter(|param| !param.is_empty()) {
            let (key, value) = param.split_once('=').unwrap_or((param, ""));
            match key {
                "sslmode" => params.ssl_mode = Some(ssl_mode(url, value)?),
                "sslrootcert" => params.root_certs = Some(PathBuf::from(percent_decode(value))),
                "sslcert" | "sslkey" | "sslpassword" | "sslcrl" | "passfile" | "service" => {
                    return Err(invalid(
                        url,
                        format!(
                            "the URL parameter `{key}` is not supported: agentctl connects \
                             with a user name and password, verifying the server with the \
                             system's certificates and `sslrootcert`"
                        ),
                    ));
                }
                _ => params.kept.push(param),
            }
        }
        Ok(params)
    }
}

/// The TLS mode `sslmode=value` asks for.
fn ssl_mode(url: &str, value: &str) -> Result<SslMode, ContextError> {
    Ok(match value {
        "disable" => SslMode::Disable,
        "allow" | "prefer" => SslMode::Prefer,
        "require" | "verify-ca" | "verify-full" => SslMode::Require,
        other => {
            return Err(invalid(
                url,
                format!(
                    "sslmode `{other}` is not one of disable, allow, prefer, require, \
                     verify-ca, verify-full"
                ),
            ));
        }
    })
}

/// The user (`PGUSER`, else `USER`) and password (`PGPASSWORD`) the URL does not name.
fn credentials_from_env(
    config: &mut tokio_postgres::Config,
    url: &str,
    env: impl Fn(&str) -> Option<String>,
) -> Result<(), ContextError> {
    if config.get_user().is_none() {
        let user = env("PGUSER").or_else(|| env("USER")).ok_or_else(|| {
            invalid(
                url,
                "the URL names no user (postgres://USER@HOST/DATABASE) and neither PGUSER \
                 nor USER is set",
            )
        })?;
        config.user(user);
    }
    if config.get_password().is_none()
        && let Some(password) = env("PGPASSWORD")
    {
        config.password(password);
    }
    Ok(())
}

/// What agentctl sets unless the URL does: `localhost`, no TLS to a local server (else TLS
/// when the server offers it), the connect timeout, the application name, the lock timeout
/// and keepalives.
fn with_defaults(config: &mut tokio_postgres::Config, ssl_mode: Option<SslMode>) {
    if config.get_hosts().is_empty() {
        config.host("localhost");
    }
    let local = config.get_hosts().iter().all(is_local);
    config.ssl_mode(ssl_mode.unwrap_or(if local {
        SslMode::Disable
    } else {
        SslMode::Prefer
    }));
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name("agentctl");
    }
    let options = match config.get_options() {
        Some(options) => format!("{options} -c lock_timeout={LOCK_TIMEOUT_MS}"),
        None => format!("-c lock_timeout={LOCK_TIMEOUT_MS}"),
    };
    config.options(options);
    config.keepalives(true);
}

/// How a store connects to its server.
#[derive(Clone)]
pub(crate) enum Connector {
    /// No TLS (`sslmode=disable`, the default for loopback addresses and sockets).
    Plain,
    /// TLS with certificate verification.
    Rustls(tokio_postgres_rustls::MakeRustlsConnect),
}

/// `postgres://user@host:port/database`: the URL without password or parameters.
fn label(config: &tokio_postgres::Config) -> String {
    let ports = config.get_ports();
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(index, host)| {
            let name = match host {
                Host::Tcp(name) if name.contains(':') => format!("[{name}]"),
                Host::Tcp(name) => name.clone(),
                #[cfg(unix)]
                Host::Unix(path) => path.display().to_string(),
            };
            match ports.get(index).or(ports.first()) {
                Some(port) => format!("{name}:{port}"),
                None => name,
            }
        })
        .collect();
    format!(
        "postgres://{}@{}/{}",
        config.get_user().unwrap_or_default(),
        hosts.join(","),
        config
            .get_dbname()
            .or(config.get_user())
            .unwrap_or_default()
    )
}

/// A loopback address, `localhost` or a Unix socket.
fn is_local(host: &Host) -> bool {
    match host {
        Host::Tcp(name) => {
            name.eq_ignore_ascii_case("localhost")
                || name
                    .trim_matches(['[', ']'])
                    .parse::<IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        }
        #[cfg(unix)]
        Host::Unix(_) => true,
    }
}

/// `%XX` escapes of a URL parameter value.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        let hex = bytes
            .get(index + 1..index + 3)
            .and_then(|pair| std::str::from_utf8(pair).ok())
            .and_then(|pair| u8::from_str_radix(pair, 16).ok());
        match (byte, hex) {
            (b'%', Some(decoded)) => {
                out.push(decoded);
                index += 3;
            }
            _ => {
                out.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(url: &str) -> Result<PgUrl, ContextError> {
        PgUrl::parse_with_env(url, |name| (name == "USER").then(|| "me".to_owned()))
    }

    #[test]
    fn labels_never_hold_the_password() {
        let url =
            parse("postgres://app:hunter2secret@db.internal:6543/agents?sslmode=require").unwrap();
        assert_eq!(url.label, "postgres://app@db.internal:6543/agents");
        assert_eq!(url.password.as_deref(), Some("hunter2secret"));
        assert_eq!(url.config.get_ssl_mode(), SslMode::Require);
        assert_eq!(
            url.mask("failed: hunter2secret at postgres://app:hunter2secret@x"),
            "failed: *** at postgres://app:***@x"
        );
    }

    #[test]
    fn defaults_follow_the_host() {
        let local = parse("postgres://127.0.0.1:5433/x").unwrap();
        assert_eq!(local.config.get_ssl_mode(), SslMode::Disable);
        assert_eq!(local.config.get_user(), Some("me"));
        assert_eq!(local.label, "postgres://me@127.0.0.1:5433/x");
        let remote = parse("postgresql://u@db.example.com/x").unwrap();
        assert_eq!(remote.config.get_ssl_mode(), SslMode::Prefer);
        assert_eq!(remote.config.get_options(), Some("-c lock_timeout=30000"));
        let verified = parse("postgres://u@db.example.com/x?sslmode=verify-full").unwrap();
        assert_eq!(verified.config.get_ssl_mode(), SslMode::Require);
    }

    #[test]
    fn bad_urls_are_refused_without_echoing_the_password() {
        for url in [
            "postgres://u:topsecret@h/x?sslmode=sometimes",
            "postgres://u:topsecret@h/x?sslcert=/a.pem",
            "postgres://u:topsecret@h/x?nonsense=1",
            "mysql://u:topsecret@h/x",
        ] {
            let error = parse(url).err().unwrap().to_string();
            assert!(!error.contains("topsecret"), "{error}");
            assert!(error.contains("u:***@h"), "{error}");
        }
    }

    #[test]
    fn a_missing_root_certificate_file_is_named() {
        let url = parse("postgres://u@db.example.com/x?sslrootcert=%2Fnowhere%2Fca.pem").unwrap();
        let error = url.connector().err().unwrap().to_string();
        assert!(error.contains("/nowhere/ca.pem"), "{error}");
    }

    #[test]
    fn masking_odd_strings() {
        assert_eq!(mask_url("postgres://:pw@h"), "postgres://:***@h");
        assert_eq!(mask_url("postgres://u:p@ss@h/x"), "postgres://u:***@h/x");
        assert_eq!(mask_url("no url here"), "no url here");
        assert_eq!(percent_decode("a%2Fb%zz"), "a/b%zz");
    }
}
