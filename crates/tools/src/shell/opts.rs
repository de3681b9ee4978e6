//! Reading options the way GNU `getopt_long` and git's parser do, for the rules.
//!
//! Both accept abbreviated long options (`sort --out=f` is `--output=f`) and clustered short
//! ones (`git push -fu` is `-f -u`), so a rule that forbids an option must look for every
//! spelling of it. The helpers here err on the side of finding an option that is not there.

use super::words::Word;

/// Whether `arg` is the long option `name` (given without dashes), written in full,
/// abbreviated, or with a value (`--output`, `--out`, `--output=x`).
pub(crate) fn is_long(arg: &str, name: &str) -> bool {
    let Some(body) = arg.strip_prefix("--") else {
        return false;
    };
    let written = body.split_once('=').map_or(body, |(name, _)| name);
    !written.is_empty() && name.starts_with(written)
}

/// Whether `arg` is a cluster of short options (`-la`) that holds `letter`. The cluster ends
/// at the first character that is no option letter: what follows is a glued value
/// (`-S/tmp/x.O` holds no `-O`).
pub(crate) fn short_has(arg: &str, letter: char) -> bool {
    arg.len() > 1
        && arg.starts_with('-')
        && !arg.starts_with("--")
        && arg[1..]
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .any(|c| c == letter)
}

/// Whether `arg` is `-x` for some letter in `letters`, or a long option in `longs`.
pub(crate) fn any(args: &[Word], letters: &str, longs: &[&str]) -> bool {
    before_dashes(args).any(|arg| {
        letters.chars().any(|letter| short_has(arg, letter))
            || longs.iter().any(|name| is_long(arg, name))
    })
}

/// The arguments before a lone `--` (after it, nothing is an option).
pub(crate) fn before_dashes(args: &[Word]) -> impl Iterator<Item = &str> {
    args.iter().map(Word::as_str).take_while(|arg| *arg != "--")
}

/// The operands: words that are not options (`-` alone is one), and everything after `--`.
pub(crate) fn operands(args: &[Word]) -> Vec<&Word> {
    let mut after_dashes = false;
    args.iter()
        .filter(|arg| {
            if after_dashes {
                return true;
            }
            if arg.as_str() == "--" {
                after_dashes = true;
                return false;
            }
            !is_option(arg.as_str())
        })
        .collect()
}

/// Whether a word is an option (`-x`, `--long`), not a lone `-`.
pub(crate) fn is_option(arg: &str) -> bool {
    arg.len() > 1 && arg.starts_with('-')
}

/// Operands and option values, read the way `getopt_long` does.
#[derive(Debug, Default)]
pub(crate) struct Split<'a> {
    /// Words that are not options or option values.
    pub operands: Vec<&'a Word>,
    /// Option words that hold no value known to the caller (flags, options it does not know),
    /// for the rules that look for paths in any word.
    pub others: Vec<&'a Word>,
    values: Vec<(&'static str, Word)>,
    /// Short letters given (before a letter that takes a value) and long names as written.
    letters: Vec<char>,
    longs: Vec<String>,
}

impl Split<'_> {
    /// The values given to the option with this long name (or its short letter).
    pub(crate) fn values(&self, long: &str) -> impl Iterator<Item = &Word> {
        self.values
            .iter()
            .filter(move |(name, _)| *name == long)
            .map(|(_, value)| value)
    }

    /// Whether an option among `letters` or `longs` (abbreviated or not) was given: unlike
    /// [`any`], a value glued to its option (`-tsrc`) is not read as more letters.
    pub(crate) fn has(&self, letters: &str, longs: &[&str]) -> bool {
        self.letters.iter().any(|letter| letters.contains(*letter))
            || self.longs.iter().any(|written| {
                !written.is_empty() && longs.iter().any(|long| long.starts_with(written.as_str()))
            })
    }

    /// The operands and the other option words: where a path may hide that the caller has
    /// not read as a known option's value.
    pub(crate) fn unknown(&self) -> Vec<Word> {
        self.operands
            .iter()
            .chain(&self.others)
            .map(|word| (*word).clone())
            .collect()
    }
}

/// Splits `args` into operands and the values of the options in `takes_value`
/// (`(Some('o'), "output")` for `-o X`, `-oX`, `--output X`, `--output=X`, `--out=X`).
pub(crate) fn split<'a>(
    args: &'a [Word],
    takes_value: &[(Option<char>, &'static str)],
) -> Split<'a> {
    let mut out = Split::default();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let text = arg.as_str();
        if text == "--" {
            out.operands.extend(iter.by_ref());
            break;
        }
        if let Some(body) = text.strip_prefix("--") {
            let written = body.split_once('=').map_or(body, |(name, _)| name);
            out.longs.push(written.to_owned());
            let found = takes_value.iter().find(|(_, long)| {
                !long.is_empty() && !written.is_empty() && long.starts_with(written)
            });
            match found {
                Some((_, long)) => match text.find('=') {
                    Some(at) => out.values.push((long, arg.tail(at + 1))),
                    None => out.values.extend(iter.next().map(|v| (*long, v.clone()))),
                },
                None => out.others.push(arg),
            }
            continue;
        }
        if !is_option(text) {
            out.operands.push(arg);
            continue;
        }
        let mut took_value = false;
        for (at, letter) in text.char_indices().skip(1) {
            let found = takes_value.iter().find(|(short, _)| *short == Some(letter));
            if let Some((_, long)) = found {
                let rest = at + letter.len_utf8();
                if rest < text.len() {
                    out.values.push((long, arg.tail(rest)));
                } else {
                    out.values.extend(iter.next().map(|v| (*long, v.clone())));
                }
                took_value = true;
                break;
            }
            out.letters.push(letter);
        }
        if !took_value {
            out.others.push(arg);
        }
    }
    out
}

/// Texts inside a word that may name a file: the word, what follows an `=`, and for a short
/// option cluster what may be its attached value (`-o/etc/x` → `/etc/x`).
pub(crate) fn path_candidates(word: &Word) -> Vec<Word> {
    let text = word.as_str();
    let sub = |from: usize| word.tail(from);
    let mut found = Vec::new();
    if let Some(body) = text.strip_prefix("--") {
        if let Some((_, _)) = body.split_once('=')
            && let Some(at) = text.find('=')
        {
            found.push(sub(at + 1));
        }
        return found;
    }
    if is_option(text) {
        // `-rf/etc`, `-f./../x`: the value may start after any letter of the cluster, and
        // whatever it starts with, it is a path like any other.
        let letters = text[1..]
            .find(|c: char| !c.is_ascii_alphanumeric())
            .map_or(text.len(), |at| at + 1);
        for start in 2..=letters.min(text.len()) {
            if start < text.len() && text.is_char_boundary(start) {
                found.push(sub(start));
            }
        }
        return found;
    }
    found.push(sub(0));
    if let Some(at) = text.find('=') {
        found.push(sub(at + 1));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<Word> {
        list.iter().map(|w| Word::literal(*w)).collect()
    }

    #[test]
    fn long_options_match_abbreviated() {
        assert!(is_long("--output=x", "output"));
        assert!(is_long("--out", "output"));
        assert!(!is_long("--oneline", "output"));
        assert!(!is_long("-o", "output"));
    }

    #[test]
    fn short_clusters_and_values() {
        assert!(short_has("-fu", 'f'));
        assert!(!short_has("-S/tmp/x.O", 'O'));
        assert!(!short_has("--force", 'f'));
        let args = words(&[
            "-o",
            "a",
            "--output=b",
            "-uoc",
            "x",
            "--out",
            "y",
            "--",
            "-o",
            "d",
        ]);
        let split = split(&args, &[(Some('o'), "output")]);
        let found: Vec<&str> = split.values("output").map(|w| w.as_str()).collect();
        assert_eq!(found, ["a", "b", "c", "y"]);
        let operands: Vec<&str> = split.operands.iter().map(|w| w.as_str()).collect();
        assert_eq!(operands, ["x", "-o", "d"]);
        assert!(split.has("u", &[]) && !split.has("c", &[]));
        let glued = words(&["-tsrc", "--rec"]);
        let split = super::split(&glued, &[(Some('t'), "target-directory")]);
        assert!(!split.has("s", &["symbolic-link"]));
        assert!(split.has("", &["recursive"]));
        let others: Vec<&str> = split.others.iter().map(|w| w.as_str()).collect();
        assert_eq!(others, ["--rec"]);
    }

    #[test]
    fn candidates_find_attached_paths() {
        let texts = |w: &str| -> Vec<String> {
            path_candidates(&Word::literal(w))
                .into_iter()
                .map(|w| w.text)
                .collect()
        };
        assert_eq!(texts("-rf/etc"), ["f/etc", "/etc"]);
        assert_eq!(texts("-f../x"), ["../x"]);
        assert_eq!(texts("-f./../x"), ["./../x"]);
        assert_eq!(texts("-S./../x"), ["./../x"]);
        assert_eq!(texts("--file=/x"), ["/x"]);
        assert_eq!(texts("of=/dev/sda"), ["of=/dev/sda", "/dev/sda"]);
        assert_eq!(texts("-la"), ["a"]);
        assert!(texts("-l").is_empty());
    }
}
