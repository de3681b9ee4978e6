//! The signals that stop a run: Ctrl-C (SIGINT), SIGTERM and SIGHUP. Each cancels the run in
//! progress, so its tools' process groups are killed, the MCP servers are stopped and the run
//! is recorded as cancelled before the process exits with 128 + the signal's number.

/// Waits for SIGINT, SIGTERM or SIGHUP and returns its number; never returns when the
/// handlers cannot be installed.
#[cfg(unix)]
pub(crate) async fn stop_signal() -> i32 {
    use tokio::signal::unix::{SignalKind, signal};
    let kinds = [
        (SignalKind::interrupt(), 2),
        (SignalKind::terminate(), 15),
        (SignalKind::hangup(), 1),
    ];
    let mut streams = Vec::new();
    for (kind, number) in kinds {
        if let Ok(stream) = signal(kind) {
            streams.push((stream, number));
        }
    }
    if streams.is_empty() {
        return std::future::pending().await;
    }
    let waits = streams.iter_mut().map(|(stream, number)| {
        let number = *number;
        Box::pin(async move {
            stream.recv().await;
            number
        })
    });
    futures_util::future::select_all(waits).await.0
}

/// Waits for Ctrl-C.
#[cfg(not(unix))]
pub(crate) async fn stop_signal() -> i32 {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
    2
}
