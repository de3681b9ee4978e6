//! One proxy request head: read (bounded), parsed with `httparse`, judged against the
//! allow-list, and what is sent on for it.

use agentctl_core::NetworkHost;
use tokio::io::{AsyncRead, AsyncReadExt};

/// Most bytes of a request head (request line and headers).
pub(crate) const MAX_HEAD_BYTES: usize = 16 * 1024;
/// Most headers of a request.
const MAX_HEADERS: usize = 100;
/// Headers meant for the proxy, or about this one connection, not sent on.
const HOP_HEADERS: [&str; 5] = [
    "proxy-connection",
    "proxy-authorization",
    "connection",
    "keep-alive",
    "te",
];

/// A refused request: the status line's code and reason, and a one-line explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub code: u16,
    pub message: String,
}

impl Refusal {
    pub(crate) fn bad(message: impl Into<String>) -> Self {
        Self {
            code: 400,
            message: message.into(),
        }
    }

    /// The whole response.
    pub(crate) fn response(&self) -> Vec<u8> {
        let reason = match self.code {
            400 => "Bad Request",
            403 => "Forbidden",
            502 => "Bad Gateway",
            _ => "Error",
        };
        let body = format!("agentctl sandbox: {}\n", self.message);
        format!(
            "HTTP/1.1 {} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.code,
            body.len()
        )
        .into_bytes()
    }
}

/// What the client asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Request {
    /// The host as written (an IPv6 address without brackets).
    pub host: String,
    pub port: u16,
    /// `CONNECT` (a tunnel) or a plain HTTP request.
    pub tunnel: bool,
    /// For a plain request, the head to send on (origin-form, `Connection: close`).
    pub head: Vec<u8>,
    /// Bytes the client sent after the head.
    pub rest: Vec<u8>,
}

/// Reads a request head from `stream`: everything up to the blank line, at most
/// [`MAX_HEAD_BYTES`]. `Ok(None)` when the client closed before sending one.
pub(crate) async fn read_head<R: AsyncRead + Unpin>(
    stream: &mut R,
) -> Result<Option<Vec<u8>>, Refusal> {
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        let read = stream
            .read(&mut chunk)
            .await
            .map_err(|error| Refusal::bad(format!("cannot read the request: {error}")))?;
        if read == 0 {
            return if buffer.is_empty() {
                Ok(None)
            } else {
                Err(Refusal::bad("the request ended before its head did"))
            };
        }
        let searched_from = buffer.len().saturating_sub(3);
        buffer.extend_from_slice(&chunk[..read]);
        if let Some(end) = find_blank_line(&buffer[searched_from..]) {
            if searched_from + end > MAX_HEAD_BYTES {
                return Err(too_large());
            }
            return Ok(Some(buffer));
        }
        if buffer.len() > MAX_HEAD_BYTES {
            return Err(too_large());
        }
    }
}

fn too_large() -> Refusal {
    Refusal::bad(format!(
        "the request head is larger than {MAX_HEAD_BYTES} bytes"
    ))
}

/// The index just past the first `\r\n\r\n`.
fn find_blank_line(bytes: &[u8]) -> Option<usize> {
    bytes
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .map(|at| at + 4)
}

/// Parses `buffer` (a head and maybe more) and checks it against `allow`.
pub(crate) fn judge(buffer: &[u8], allow: &[NetworkHost]) -> Result<Request, Refusal> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Request::new(&mut headers);
    let end = match parsed.parse(buffer) {
        Ok(httparse::Status::Complete(end)) => end,
        Ok(httparse::Status::Partial) => return Err(Refusal::bad("incomplete request head")),
        Err(error) => return Err(Refusal::bad(format!("malformed request: {error}"))),
    };
    let method = parsed.method.unwrap_or_default();
    let target = parsed.path.unwrap_or_default();
    let tunnel = method.eq_ignore_ascii_case("CONNECT");
    let (host, port, path) = if tunnel {
        let (host, port) = authority(target, None)?;
        (host, port, String::new())
    } else {
        absolute_form(target)?
    };
    if !allow.iter().any(|allowed| allowed.matches(&host, port)) {
        return Err(Refusal {
            code: 403,
            message: format!("{} is not in sandbox.network.allow", show(&host, port)),
        });
    }
    let head = if tunnel {
        Vec::new()
    } else {
        origin_head(method, &path, parsed.headers, &host, port)
    };
    Ok(Request {
        host,
        port,
        tunnel,
        head,
        rest: buffer[end..].to_vec(),
    })
}

/// `host:port` (IPv6 in brackets); `default_port` when the port may be left out.
fn authority(text: &str, default_port: Option<u16>) -> Result<(String, u16), Refusal> {
    let bad = || Refusal::bad(format!("`{text}` is not a host and port"));
    if text.is_empty() || text.contains(['@', '/', '?', '#', ' ']) {
        return Err(bad());
    }
    let (host, port) = match text.strip_prefix('[') {
        Some(rest) => {
            let (host, after) = rest.split_once(']').ok_or_else(bad)?;
            host.parse::<std::net::Ipv6Addr>().map_err(|_| bad())?;
            (host, after.strip_prefix(':'))
        }
        None => match text.rsplit_once(':') {
            Some((host, port)) if !host.contains(':') => (host, Some(port)),
            Some(_) => return Err(bad()),
            None => (text, None),
        },
    };
    let port = match port {
        Some(port) => port.parse::<u16>().ok().filter(|port| *port > 0),
        None => default_port,
    }
    .ok_or_else(bad)?;
    if host.is_empty() {
        return Err(bad());
    }
    Ok((host.to_owned(), port))
}

/// `http://host[:port][/path]` → host, port, origin-form path.
fn absolute_form(target: &str) -> Result<(String, u16, String), Refusal> {
    let lower = target.get(..7).map(str::to_ascii_lowercase);
    if lower.as_deref() != Some("http://") {
        return Err(Refusal::bad(format!(
            "`{target}` is not an absolute http:// URL (use CONNECT for https)"
        )));
    }
    let rest = &target[7..];
    let split = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority_text, path) = rest.split_at(split);
    let (host, port) = authority(authority_text, Some(80))?;
    let path = match path.split('#').next().unwrap_or_default() {
        "" => "/".to_owned(),
        query if query.starts_with('?') => format!("/{query}"),
        path => path.to_owned(),
    };
    Ok((host, port, path))
}

/// The head sent on for a plain request: origin-form target, hop-by-hop headers dropped,
/// `Host` added when missing, one request per connection.
fn origin_head(
    method: &str,
    path: &str,
    headers: &[httparse::Header<'_>],
    host: &str,
    port: u16,
) -> Vec<u8> {
    let mut head = format!("{method} {path} HTTP/1.1\r\n").into_bytes();
    let mut has_host = false;
    for header in headers {
        let name = header.name.to_ascii_lowercase();
        if HOP_HEADERS.contains(&name.as_str()) {
            continue;
        }
        has_host |= name == "host";
        head.extend_from_slice(header.name.as_bytes());
        head.extend_from_slice(b": ");
        head.extend_from_slice(header.value);
        head.extend_from_slice(b"\r\n");
    }
    if !has_host {
        head.extend_from_slice(format!("Host: {}\r\n", show(host, port)).as_bytes());
    }
    head.extend_from_slice(b"Connection: close\r\n\r\n");
    head
}

/// `host:port`, IPv6 in brackets.
pub(crate) fn show(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allow(hosts: &[&str]) -> Vec<NetworkHost> {
        hosts.iter().map(|host| host.parse().unwrap()).collect()
    }

    #[test]
    fn connect_requests_are_tunnels_to_allowed_hosts_only() {
        let list = allow(&["*.example.org", "localhost:8443"]);
        let request = judge(
            b"CONNECT api.example.org:443 HTTP/1.1\r\nHost: api.example.org:443\r\n\r\nHELLO",
            &list,
        )
        .unwrap();
        assert_eq!(
            (request.host.as_str(), request.port),
            ("api.example.org", 443)
        );
        assert!(request.tunnel && request.head.is_empty());
        assert_eq!(request.rest, b"HELLO");
        let refused = judge(b"CONNECT localhost:443 HTTP/1.1\r\n\r\n", &list).unwrap_err();
        assert_eq!(refused.code, 403);
        assert_eq!(
            refused.message,
            "localhost:443 is not in sandbox.network.allow"
        );
        let v6 = judge(b"CONNECT [::1]:443 HTTP/1.1\r\n\r\n", &allow(&["::1"])).unwrap();
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 443));
        for bad in [
            "CONNECT example.org HTTP/1.1",
            "CONNECT a@b:1 HTTP/1.1",
            "CONNECT :1 HTTP/1.1",
        ] {
            let refused = judge(format!("{bad}\r\n\r\n").as_bytes(), &list).unwrap_err();
            assert_eq!(refused.code, 400, "{bad}");
        }
    }

    #[test]
    fn absolute_form_requests_are_sent_on_in_origin_form() {
        let list = allow(&["localhost"]);
        let request = judge(
            b"GET http://LocalHost:8080/a?b=1 HTTP/1.1\r\nHost: localhost:8080\r\n\
              Proxy-Connection: keep-alive\r\nProxy-Authorization: x\r\nAccept: */*\r\n\r\n",
            &list,
        )
        .unwrap();
        assert_eq!((request.host.as_str(), request.port), ("LocalHost", 8080));
        assert_eq!(
            String::from_utf8(request.head).unwrap(),
            "GET /a?b=1 HTTP/1.1\r\nHost: localhost:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n"
        );
        let request = judge(b"POST http://localhost HTTP/1.1\r\n\r\nbody", &list).unwrap();
        assert_eq!(request.port, 80);
        assert_eq!(
            String::from_utf8(request.head).unwrap(),
            "POST / HTTP/1.1\r\nHost: localhost:80\r\nConnection: close\r\n\r\n"
        );
        assert_eq!(request.rest, b"body");
        let refused = judge(b"GET /x HTTP/1.1\r\nHost: localhost\r\n\r\n", &list).unwrap_err();
        assert_eq!(refused.code, 400);
        let refused = judge(b"GET https://localhost/ HTTP/1.1\r\n\r\n", &list).unwrap_err();
        assert!(refused.message.contains("use CONNECT"), "{refused:?}");
        let refused = judge(b"GET http://127.0.0.1:9/ HTTP/1.1\r\n\r\n", &list).unwrap_err();
        assert_eq!(refused.code, 403);
    }

    #[tokio::test]
    async fn oversized_and_garbage_heads_are_refused_with_400() {
        let huge = format!(
            "GET http://x/ HTTP/1.1\r\nX: {}\r\n\r\n",
            "a".repeat(20_000)
        );
        let refused = read_head(&mut huge.as_bytes()).await.unwrap_err();
        assert_eq!(refused.code, 400);
        assert!(refused.message.contains("larger than 16384 bytes"));
        let endless = vec![b'a'; 100_000];
        assert_eq!(
            read_head(&mut endless.as_slice()).await.unwrap_err().code,
            400
        );
        let cut = b"GET http://x/ HTTP/1.1\r\n";
        assert_eq!(read_head(&mut cut.as_slice()).await.unwrap_err().code, 400);
        assert_eq!(read_head(&mut b"".as_slice()).await.unwrap(), None);
        let garbage = judge(b"\x00\x01\x02 garbage\r\n\r\n", &[]).unwrap_err();
        assert_eq!(garbage.code, 400);
        assert!(
            garbage.message.starts_with("malformed request"),
            "{garbage:?}"
        );
        let response = String::from_utf8(garbage.response()).unwrap();
        assert!(
            response.starts_with("HTTP/1.1 400 Bad Request\r\n"),
            "{response}"
        );
        assert!(
            response.ends_with("\r\n\r\nagentctl sandbox: malformed request: invalid token\n")
                || response.contains("agentctl sandbox: malformed request"),
            "{response}"
        );
    }
}
