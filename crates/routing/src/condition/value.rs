//! JSON values into CEL values, and CEL values described for error messages.

use cel::objects::Value as CelValue;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// A JSON value as CEL sees it: objects are maps with string keys, arrays are lists, integers
/// are `int` (or `uint` above `i64::MAX`), other numbers `double`. CEL compares numbers across
/// these types (`fix.count == 2.0` holds for a stored `2`), so the choice only shows in `type()`.
pub(crate) fn to_cel(value: &Value) -> CelValue {
    match value {
        Value::Null => CelValue::Null,
        Value::Bool(flag) => CelValue::Bool(*flag),
        Value::Number(number) => {
            if let Some(int) = number.as_i64() {
                CelValue::Int(int)
            } else if let Some(uint) = number.as_u64() {
                CelValue::UInt(uint)
            } else {
                CelValue::Float(number.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(text) => CelValue::String(Arc::new(text.clone())),
        Value::Array(items) => CelValue::List(Arc::new(items.iter().map(to_cel).collect())),
        Value::Object(map) => {
            let map: HashMap<String, CelValue> = map
                .iter()
                .map(|(key, value)| (key.clone(), to_cel(value)))
                .collect();
            CelValue::from(map)
        }
    }
}

/// `a string ("x")`, `an int (3)`, `a map`: what a non-boolean result was, short.
pub(crate) fn describe(value: &CelValue) -> String {
    let shown = match value {
        CelValue::Int(int) => Some(int.to_string()),
        CelValue::UInt(uint) => Some(format!("{uint}u")),
        CelValue::Float(float) => Some(float.to_string()),
        CelValue::String(text) => {
            let mut short: String = text.chars().take(40).collect();
            if short.len() < text.len() {
                short.push('…');
            }
            Some(format!("{short:?}"))
        }
        _ => None,
    };
    let kind = match value.type_of().to_string().as_str() {
        "int" => "an int".to_owned(),
        "uint" => "a uint".to_owned(),
        "null" => "null".to_owned(),
        other => format!("a {other}"),
    };
    match shown {
        Some(shown) => format!("{kind} ({shown})"),
        None => kind,
    }
}

/// The type name of a JSON value as CEL calls it, for "`fix` is a string" messages.
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(number) if number.is_f64() => "a double",
        Value::Number(_) => "an int",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_keep_their_kind() {
        assert_eq!(to_cel(&json!(3)), CelValue::Int(3));
        assert_eq!(to_cel(&json!(u64::MAX)), CelValue::UInt(u64::MAX));
        assert_eq!(to_cel(&json!(1.5)), CelValue::Float(1.5));
        assert_eq!(to_cel(&json!(null)), CelValue::Null);
    }

    #[test]
    fn descriptions() {
        assert_eq!(describe(&CelValue::Int(3)), "an int (3)");
        assert_eq!(describe(&to_cel(&json!("x"))), "a string (\"x\")");
        assert_eq!(describe(&to_cel(&json!({"a": 1}))), "a map");
        assert_eq!(describe(&CelValue::Null), "null");
        assert_eq!(json_kind(&json!([1])), "a list");
    }
}
