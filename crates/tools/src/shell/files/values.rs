//! The options of common read-only programs that take a value, and which of those values
//! are files: with them, `grep -fsrc/x.rs` reads `src/x.rs` (not `/x.rs`, which a guess at
//! where the glued value starts would also try), and `date -f./../x` reads `../x`.

/// Whether an option's value names a file the program reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Value {
    File,
    Other,
}

use Value::{File, Other};

/// One option that takes a value: its letter, its long name (`""` if none), what the value is.
pub(crate) type Opt = (Option<char>, &'static str, Value);

/// The value-taking options of programs the rater knows.
const TABLE: &[(&[&str], &[Opt])] = &[
    (
        &["grep", "egrep", "fgrep"],
        &[
            (Some('e'), "regexp", Other),
            (Some('f'), "file", File),
            (Some('m'), "max-count", Other),
            (Some('A'), "after-context", Other),
            (Some('B'), "before-context", Other),
            (Some('C'), "context", Other),
            (Some('d'), "directories", Other),
            (Some('D'), "devices", Other),
            (None, "exclude-from", File),
            (None, "include", Other),
            (None, "exclude", Other),
            (None, "exclude-dir", Other),
            (None, "label", Other),
            (None, "binary-files", Other),
            (None, "group-separator", Other),
        ],
    ),
    (
        &["file"],
        &[
            (Some('f'), "files-from", File),
            (Some('m'), "magic-file", File),
            (Some('F'), "separator", Other),
            (Some('e'), "exclude", Other),
            (Some('P'), "parameter", Other),
            (None, "exclude-quiet", Other),
        ],
    ),
    (
        &["date"],
        &[
            (Some('f'), "file", File),
            (Some('r'), "reference", File),
            (Some('d'), "date", Other),
            (Some('s'), "set", Other),
        ],
    ),
    (
        &["hexdump"],
        &[
            (Some('f'), "format-file", File),
            (Some('e'), "format", Other),
            (Some('n'), "length", Other),
            (Some('s'), "skip", Other),
        ],
    ),
    (
        &["od"],
        &[
            (Some('A'), "address-radix", Other),
            (Some('j'), "skip-bytes", Other),
            (Some('N'), "read-bytes", Other),
            (Some('S'), "strings", Other),
            (Some('t'), "format", Other),
            (Some('w'), "width", Other),
        ],
    ),
    (
        &["head", "tail"],
        &[
            (Some('c'), "bytes", Other),
            (Some('n'), "lines", Other),
            (Some('s'), "sleep-interval", Other),
            (None, "pid", Other),
        ],
    ),
    (
        &["cut"],
        &[
            (Some('b'), "bytes", Other),
            (Some('c'), "characters", Other),
            (Some('d'), "delimiter", Other),
            (Some('f'), "fields", Other),
            (None, "output-delimiter", Other),
        ],
    ),
    (&["wc"], &[(None, "files0-from", File)]),
    (
        &["du"],
        &[
            (None, "files0-from", File),
            (Some('X'), "exclude-from", File),
            (Some('d'), "max-depth", Other),
            (Some('B'), "block-size", Other),
            (Some('t'), "threshold", Other),
            (None, "exclude", Other),
            (None, "time-style", Other),
        ],
    ),
    (
        &["diff"],
        &[
            (None, "from-file", File),
            (None, "to-file", File),
            (Some('X'), "exclude-from", File),
            (Some('x'), "exclude", Other),
            (Some('I'), "ignore-matching-lines", Other),
            (Some('L'), "label", Other),
            (Some('W'), "width", Other),
            (Some('F'), "show-function-line", Other),
        ],
    ),
    (
        &["cmp"],
        &[
            (Some('i'), "ignore-initial", Other),
            (Some('n'), "bytes", Other),
        ],
    ),
    (
        &["realpath", "readlink"],
        &[(None, "relative-to", File), (None, "relative-base", File)],
    ),
    (
        &["stat"],
        &[(Some('c'), "format", Other), (None, "printf", Other)],
    ),
    (
        &["strings"],
        &[
            (Some('n'), "bytes", Other),
            (Some('t'), "radix", Other),
            (Some('e'), "encoding", Other),
        ],
    ),
    (
        &["base64", "base32", "fold", "fmt"],
        &[(Some('w'), "width", Other)],
    ),
    (&["tac"], &[(Some('s'), "separator", Other)]),
    (&["paste"], &[(Some('d'), "delimiters", Other)]),
    (
        &[
            "md5sum",
            "sha1sum",
            "sha224sum",
            "sha256sum",
            "sha384sum",
            "sha512sum",
            "b2sum",
            "cksum",
        ],
        &[
            (Some('l'), "length", Other),
            (Some('a'), "algorithm", Other),
        ],
    ),
];

/// The value-taking options of `program`, if the rater knows them.
pub(crate) fn options(program: &str) -> Option<&'static [Opt]> {
    TABLE
        .iter()
        .find(|(names, _)| names.contains(&program))
        .map(|(_, options)| *options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_letters_are_unique_per_program() {
        for program in [
            "grep", "file", "date", "hexdump", "od", "head", "cut", "du", "diff",
        ] {
            let list = options(program).unwrap();
            for (at, (letter, long, _)) in list.iter().enumerate() {
                assert!(
                    !list[at + 1..]
                        .iter()
                        .any(|(l, n, _)| (letter.is_some() && l == letter)
                            || (!long.is_empty() && n == long)),
                    "{program}: {letter:?} {long}"
                );
            }
        }
    }
}
