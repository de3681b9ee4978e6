//! Agent definition files (being written).
