//! OpenTelemetry export (to be written).
