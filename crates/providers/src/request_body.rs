//! [`RequestBody`]: a request body sent from parts that many requests share.

use bytes::Bytes;
use http_body::{Frame, SizeHint};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// A request body (JSON text) in parts sent one after another, so a part many requests share
/// (the serialised tool specs) is sent from its one copy rather than copied into every body
/// a waiting run keeps for its retries.
#[derive(Debug, Clone, Default)]
pub(crate) struct RequestBody {
    /// Shared with the attempts being sent: an attempt costs no copy of the list.
    parts: Arc<[Bytes]>,
}

impl RequestBody {
    /// The body made of `parts`, in order.
    pub fn from_parts(parts: impl IntoIterator<Item = Bytes>) -> Self {
        Self {
            parts: parts.into_iter().filter(|part| !part.is_empty()).collect(),
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.parts.iter().map(Bytes::len).sum()
    }

    /// The whole body in one buffer (tests and recordings).
    #[cfg(test)]
    pub fn to_vec(&self) -> Vec<u8> {
        self.parts.concat()
    }

    /// The body for one attempt; clones of `Bytes` share their buffers. A body in parts states
    /// its exact length, so it is sent with a `Content-Length` like a whole one (not chunked).
    pub fn to_reqwest(&self) -> reqwest::Body {
        match &*self.parts {
            [] => reqwest::Body::from(Bytes::new()),
            [one] => reqwest::Body::from(one.clone()),
            _ => reqwest::Body::wrap(Parts {
                remaining: self.len() as u64,
                parts: Arc::clone(&self.parts),
                next: 0,
            }),
        }
    }
}

impl From<Bytes> for RequestBody {
    fn from(bytes: Bytes) -> Self {
        Self::from_parts([bytes])
    }
}

/// One attempt's body: the parts, one frame each.
struct Parts {
    parts: Arc<[Bytes]>,
    /// The part the next frame sends.
    next: usize,
    /// Bytes not sent yet.
    remaining: u64,
}

impl http_body::Body for Parts {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        let Some(part) = this.parts.get(this.next) else {
            return Poll::Ready(None);
        };
        this.next += 1;
        this.remaining -= part.len() as u64;
        Poll::Ready(Some(Ok(Frame::data(part.clone()))))
    }

    fn is_end_stream(&self) -> bool {
        self.next >= self.parts.len()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.remaining)
    }
}
