//! One page of a text file, read as a stream: never more than the byte cap plus the reader's
//! buffer in memory, however long the file or its lines.
//!
//! A page starts at a line (and, for lines longer than the cap, at a byte inside it) and ends at
//! the line limit, at the byte cap or at the end of the file. A single line longer than the cap
//! is cut into chunks at UTF-8 character boundaries, so every byte of a minified file can be
//! reached by asking for the next chunk.

use std::io::{self, BufRead};

/// What to read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Request {
    /// First line, 1-based.
    pub(crate) first: usize,
    /// Byte inside the first line to start from, 0-based.
    pub(crate) byte_offset: u64,
    /// Most lines (a chunk of a long line counts as one).
    pub(crate) max_lines: usize,
    /// Most bytes.
    pub(crate) max_bytes: usize,
}

/// Why a page ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The file ended.
    End,
    /// The line limit was reached; line `next` follows.
    Lines { next: usize },
    /// The byte cap was reached before line `next`.
    Bytes { next: usize },
    /// Line `line` is longer than the cap and continues at byte `next_byte` of the line.
    MidLine { line: usize, next_byte: u64 },
    /// Line `line` holds NUL bytes (binary data) and was not shown.
    Binary { line: usize },
}

/// The outcome of a read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Page {
    /// Some (possibly no) text.
    Text {
        /// The bytes shown, as in the file.
        bytes: Vec<u8>,
        /// The last line shown (or `first - 1` when none was).
        last: usize,
        /// Where in the first line the text starts (after stepping over a split character).
        start_byte: u64,
        /// Why it ended.
        stop: Stop,
    },
    /// The file has fewer lines than the first one asked for.
    NoSuchLine {
        /// How many lines it has.
        lines: usize,
    },
    /// The first line ends before the byte asked for.
    LineTooShort {
        /// The line's length without its newline.
        len: u64,
    },
}

/// Reads one page of `reader` as `request` says.
pub(crate) fn read_page<R: BufRead>(reader: &mut R, request: &Request) -> io::Result<Page> {
    if let Some(lines) = skip_lines(reader, request.first.saturating_sub(1))? {
        return Ok(Page::NoSuchLine { lines });
    }
    let start_byte = match skip_bytes(reader, request.byte_offset)? {
        Ok(start) => start,
        Err(len) => return Ok(Page::LineTooShort { len }),
    };
    let mut bytes = Vec::new();
    let mut line = request.first;
    let mut shown = 0;
    let mut line_start = start_byte;
    let stop = loop {
        if shown == request.max_lines {
            break if reader.fill_buf()?.is_empty() {
                Stop::End
            } else {
                Stop::Lines { next: line }
            };
        }
        let start = bytes.len();
        let budget = request.max_bytes.saturating_sub(start);
        // Up to four bytes past the budget, to see where the character at the cut begins.
        let eof = read_line_capped(reader, &mut bytes, budget + 4)?;
        let len = bytes.len() - start;
        if len == 0 && eof {
            if shown == 0 && start_byte == 0 {
                return Ok(Page::NoSuchLine {
                    lines: request.first.saturating_sub(1),
                });
            }
            break Stop::End;
        }
        let keep = if len <= budget {
            len
        } else if shown > 0 {
            bytes.truncate(start);
            break Stop::Bytes { next: line };
        } else {
            char_cut(&bytes[start..], budget)
        };
        bytes.truncate(start + keep);
        if bytes[start..].contains(&0) {
            bytes.truncate(start);
            break Stop::Binary { line };
        }
        shown += 1;
        if keep < len {
            break Stop::MidLine {
                line,
                next_byte: line_start + keep as u64,
            };
        }
        line += 1;
        line_start = 0;
        if eof {
            break Stop::End;
        }
    };
    Ok(Page::Text {
        bytes,
        last: request.first + shown - 1,
        start_byte,
        stop,
    })
}

/// Skips `count` lines without keeping them; `Some(lines in the file)` if it ends first.
fn skip_lines<R: BufRead>(reader: &mut R, count: usize) -> io::Result<Option<usize>> {
    let (mut done, mut partial) = (0, false);
    while done < count {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(Some(done + usize::from(partial)));
        }
        match buf.iter().position(|&byte| byte == b'\n') {
            Some(at) => {
                reader.consume(at + 1);
                done += 1;
                partial = false;
            }
            None => {
                let all = buf.len();
                reader.consume(all);
                partial = true;
            }
        }
    }
    Ok(None)
}

/// Skips `count` bytes of the current line, then any UTF-8 continuation bytes so the text
/// starts on a character. `Ok(where it starts)`, or `Err(line length)` if the line is shorter.
fn skip_bytes<R: BufRead>(reader: &mut R, count: u64) -> io::Result<Result<u64, u64>> {
    let mut left = count;
    while left > 0 {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(Err(count - left));
        }
        let take = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        if let Some(at) = buf[..take].iter().position(|&byte| byte == b'\n') {
            return Ok(Err(count - left + at as u64));
        }
        reader.consume(take);
        left -= take as u64;
    }
    let mut start = count;
    if count > 0 {
        for _ in 0..3 {
            match reader.fill_buf()?.first() {
                Some(&byte) if is_continuation(byte) => {
                    reader.consume(1);
                    start += 1;
                }
                _ => break,
            }
        }
    }
    Ok(Ok(start))
}

/// Appends the rest of the current line (with its newline) to `out`, but at most `limit`
/// bytes; true when the file ended.
fn read_line_capped<R: BufRead>(
    reader: &mut R,
    out: &mut Vec<u8>,
    limit: usize,
) -> io::Result<bool> {
    let mut taken = 0;
    while taken < limit {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(true);
        }
        let take = buf.len().min(limit - taken);
        if let Some(at) = buf[..take].iter().position(|&byte| byte == b'\n') {
            out.extend_from_slice(&buf[..=at]);
            reader.consume(at + 1);
            return Ok(false);
        }
        out.extend_from_slice(&buf[..take]);
        reader.consume(take);
        taken += take;
    }
    Ok(false)
}

/// Where to cut `bytes` (longer than `max`) at most `max` bytes in without splitting a UTF-8
/// character; invalid UTF-8 is cut at `max`.
fn char_cut(bytes: &[u8], max: usize) -> usize {
    let mut cut = max;
    while cut > 0 && max - cut < 3 && bytes.get(cut).is_some_and(|&byte| is_continuation(byte)) {
        cut -= 1;
    }
    if cut == 0 || bytes.get(cut).is_some_and(|&byte| is_continuation(byte)) {
        max
    } else {
        cut
    }
}

fn is_continuation(byte: u8) -> bool {
    byte & 0b1100_0000 == 0b1000_0000
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(
        text: &str,
        first: usize,
        byte_offset: u64,
        max_lines: usize,
        max_bytes: usize,
    ) -> Page {
        let request = Request {
            first,
            byte_offset,
            max_lines,
            max_bytes,
        };
        read_page(
            &mut io::BufReader::with_capacity(7, text.as_bytes()),
            &request,
        )
        .unwrap()
    }

    fn text(bytes: &str, last: usize, start_byte: u64, stop: Stop) -> Page {
        Page::Text {
            bytes: bytes.as_bytes().to_vec(),
            last,
            start_byte,
            stop,
        }
    }

    #[test]
    fn lines_and_limits() {
        let file = "one\ntwo\nthree\nfour";
        assert_eq!(page(file, 1, 0, 10, 100), text(file, 4, 0, Stop::End));
        assert_eq!(
            page(file, 2, 0, 2, 100),
            text("two\nthree\n", 3, 0, Stop::Lines { next: 4 })
        );
        assert_eq!(
            page(file, 1, 0, 10, 9),
            text("one\ntwo\n", 2, 0, Stop::Bytes { next: 3 })
        );
        assert_eq!(page(file, 5, 0, 10, 100), Page::NoSuchLine { lines: 4 });
        assert_eq!(page("a\n", 2, 0, 10, 100), Page::NoSuchLine { lines: 1 });
        assert_eq!(page("", 1, 0, 10, 100), Page::NoSuchLine { lines: 0 });
        assert_eq!(page("a\n", 1, 0, 1, 100), text("a\n", 1, 0, Stop::End));
        assert_eq!(
            page("a\0b\nc\n", 1, 0, 5, 100),
            text("", 0, 0, Stop::Binary { line: 1 })
        );
    }

    #[test]
    fn long_lines_come_in_chunks_on_character_boundaries() {
        // "é" is two bytes, "€" three, "😀" four.
        let line = "aé€😀".repeat(50);
        let mut rebuilt = String::new();
        let mut offset = 0;
        loop {
            match page(&line, 1, offset, 10, 16) {
                Page::Text {
                    bytes,
                    start_byte,
                    stop,
                    ..
                } => {
                    assert_eq!(start_byte, offset);
                    assert!(bytes.len() <= 16);
                    rebuilt.push_str(std::str::from_utf8(&bytes).unwrap());
                    match stop {
                        Stop::MidLine { line: 1, next_byte } => offset = next_byte,
                        Stop::End => break,
                        other => panic!("{other:?}"),
                    }
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(rebuilt, line);
        // An offset inside a character moves on to the next one.
        assert_eq!(page("é€x\n", 1, 3, 1, 100), text("x\n", 1, 5, Stop::End));
        assert_eq!(page("abc\nd", 1, 4, 1, 100), Page::LineTooShort { len: 3 });
        assert_eq!(page("abc", 1, 3, 1, 100), text("", 0, 3, Stop::End));
    }

    #[test]
    fn a_long_line_after_others_waits_for_the_next_page() {
        let file = format!("short\n{}\n", "x".repeat(40));
        assert_eq!(
            page(&file, 1, 0, 10, 20),
            text("short\n", 1, 0, Stop::Bytes { next: 2 })
        );
        assert_eq!(
            page(&file, 2, 0, 10, 20),
            text(
                &"x".repeat(20),
                2,
                0,
                Stop::MidLine {
                    line: 2,
                    next_byte: 20
                }
            )
        );
    }
}
