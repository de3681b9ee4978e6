//! How a scalar reads: serde_norway 0.9's rules (its `de.rs`, MIT OR Apache-2.0), so that a
//! value reads as it did — `~` is null, `0x1F` a number, `007` a string.

use super::Error;
use serde::de::Visitor;
use std::num::ParseIntError;

pub(super) fn visit_scalar<'de, V: Visitor<'de>>(
    visitor: V,
    v: &'de str,
    plain: bool,
) -> Result<V::Value, Error> {
    if !plain {
        return visitor.visit_borrowed_str(v);
    }
    if v.is_empty() || is_null(v) {
        return visitor.visit_unit();
    }
    if let Some(boolean) = parse_bool(v) {
        return visitor.visit_bool(boolean);
    }
    let visitor = match visit_int(visitor, v) {
        Ok(result) => return result,
        Err(visitor) => visitor,
    };
    if !digits_but_not_number(v)
        && let Some(float) = parse_f64(v)
    {
        return visitor.visit_f64(float);
    }
    visitor.visit_borrowed_str(v)
}

fn visit_int<'de, V: Visitor<'de>>(visitor: V, v: &str) -> Result<Result<V::Value, Error>, V> {
    if let Some(int) = parse_unsigned_int(v, u64::from_str_radix) {
        return Ok(visitor.visit_u64(int));
    }
    if let Some(int) = parse_negative_int(v, i64::from_str_radix) {
        return Ok(visitor.visit_i64(int));
    }
    if let Some(int) = parse_unsigned_int(v, u128::from_str_radix) {
        return Ok(visitor.visit_u128(int));
    }
    if let Some(int) = parse_negative_int(v, i128::from_str_radix) {
        return Ok(visitor.visit_i128(int));
    }
    Err(visitor)
}

pub(super) fn is_null(v: &str) -> bool {
    matches!(v, "null" | "Null" | "NULL" | "~")
}

pub(super) fn parse_bool(v: &str) -> Option<bool> {
    match v {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

type Radix<T> = fn(&str, u32) -> Result<T, ParseIntError>;

/// `-0x1F`, `-0o17`, `-0b11`.
fn negative_prefixed<T>(v: &str, from_str_radix: Radix<T>) -> Option<T> {
    for (prefix, radix) in [("-0x", 16), ("-0o", 8), ("-0b", 2)] {
        if let Some(rest) = v.strip_prefix(prefix)
            && let Ok(int) = from_str_radix(&format!("-{rest}"), radix)
        {
            return Some(int);
        }
    }
    None
}

pub(super) fn parse_unsigned_int<T>(v: &str, from_str_radix: Radix<T>) -> Option<T> {
    let unsigned = v.strip_prefix('+').unwrap_or(v);
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = unsigned.strip_prefix(prefix) {
            if rest.starts_with(['+', '-']) {
                return None;
            }
            if let Ok(int) = from_str_radix(rest, radix) {
                return Some(int);
            }
        }
    }
    if unsigned.starts_with(['+', '-']) || digits_but_not_number(v) {
        return None;
    }
    from_str_radix(unsigned, 10).ok()
}

pub(super) fn parse_signed_int<T>(v: &str, from_str_radix: Radix<T>) -> Option<T> {
    let unsigned = match v.strip_prefix('+') {
        Some(rest) if rest.starts_with(['+', '-']) => return None,
        Some(rest) => rest,
        None => v,
    };
    // serde_norway tries each prefix, then its negative form, in this order.
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = unsigned.strip_prefix(prefix) {
            if rest.starts_with(['+', '-']) {
                return None;
            }
            if let Ok(int) = from_str_radix(rest, radix) {
                return Some(int);
            }
        }
        if let Some(rest) = v.strip_prefix('-').and_then(|r| r.strip_prefix(prefix))
            && let Ok(int) = from_str_radix(&format!("-{rest}"), radix)
        {
            return Some(int);
        }
    }
    if digits_but_not_number(v) {
        return None;
    }
    from_str_radix(unsigned, 10).ok()
}

fn parse_negative_int<T>(v: &str, from_str_radix: Radix<T>) -> Option<T> {
    if let Some(int) = negative_prefixed(v, from_str_radix) {
        return Some(int);
    }
    if digits_but_not_number(v) {
        return None;
    }
    from_str_radix(v, 10).ok()
}

pub(super) fn parse_f64(v: &str) -> Option<f64> {
    let unsigned = match v.strip_prefix('+') {
        Some(rest) if rest.starts_with(['+', '-']) => return None,
        Some(rest) => rest,
        None => v,
    };
    if let ".inf" | ".Inf" | ".INF" = unsigned {
        return Some(f64::INFINITY);
    }
    if let "-.inf" | "-.Inf" | "-.INF" = v {
        return Some(f64::NEG_INFINITY);
    }
    if let ".nan" | ".NaN" | ".NAN" = v {
        return Some(f64::NAN.copysign(1.0));
    }
    unsigned.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// Leading zeros followed by digits make a string in YAML 1.2 (`007`).
fn digits_but_not_number(v: &str) -> bool {
    let v = v.strip_prefix(['-', '+']).unwrap_or(v);
    v.len() > 1 && v.starts_with('0') && v[1..].bytes().all(|b| b.is_ascii_digit())
}
