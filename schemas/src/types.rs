//! Mapping from the Rust types used in row structs to Arrow data types.
//!
//! Every table is declared once, as a Rust struct (see [`crate::table!`]); its Arrow
//! schema is derived from the field types through [`ArrowType`], so the struct and the
//! schema cannot drift apart.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, TimeUnit};
use serde::{Deserialize, Serialize};

/// A Rust type with a fixed Arrow representation.
pub trait ArrowType {
    /// Whether a column of this type may hold nulls (only `Option<T>`).
    const NULLABLE: bool = false;
    /// The Arrow data type of a column of this type.
    fn data_type() -> DataType;
    /// The values a text column may hold, for a closed vocabulary ([`crate::text_enum!`]).
    fn values() -> Option<&'static [&'static str]> {
        None
    }
}

/// Text that is none of a vocabulary's values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a {what}; expected one of {}", list(allowed))]
pub struct UnknownText {
    pub what: &'static str,
    pub text: String,
    pub allowed: &'static [&'static str],
}

fn list(values: &[&str]) -> String {
    values
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

macro_rules! prim {
    ($t:ty, $dt:expr) => {
        impl ArrowType for $t {
            fn data_type() -> DataType {
                $dt
            }
        }
    };
}
prim!(String, DataType::Utf8);
prim!(bool, DataType::Boolean);
prim!(i32, DataType::Int32);
prim!(i64, DataType::Int64);
prim!(u32, DataType::UInt32);
prim!(u64, DataType::UInt64);
prim!(f64, DataType::Float64);

impl<T: ArrowType> ArrowType for Option<T> {
    const NULLABLE: bool = true;
    fn data_type() -> DataType {
        T::data_type()
    }
    fn values() -> Option<&'static [&'static str]> {
        T::values()
    }
}

impl<T: ArrowType> ArrowType for Vec<T> {
    fn data_type() -> DataType {
        DataType::List(Arc::new(Field::new("item", T::data_type(), T::NULLABLE)))
    }
    fn values() -> Option<&'static [&'static str]> {
        T::values()
    }
}

/// Raw bytes, stored as an Arrow `Binary` column (a file that is not text).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Bytes(pub Vec<u8>);

impl ArrowType for Bytes {
    fn data_type() -> DataType {
        DataType::Binary
    }
}

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Bytes, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(Bytes(out))
            }
        }
        d.deserialize_bytes(V)
    }
}

/// A point in time, microseconds since the Unix epoch, UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Timestamp(pub i64);

impl ArrowType for Timestamp {
    fn data_type() -> DataType {
        DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
    }
}

impl Timestamp {
    /// Seconds since the epoch to a timestamp.
    pub fn from_unix_seconds(secs: i64) -> Self {
        Self(secs * 1_000_000)
    }

    /// Seconds since the epoch.
    pub fn unix_seconds(self) -> i64 {
        self.0.div_euclid(1_000_000)
    }

    /// Parse `YYYY-MM-DD` or an RFC 3339 time (`YYYY-MM-DDTHH:MM:SS[.frac][Z|±HH:MM]`).
    /// Only real calendar dates and times are read: `2026-02-30`, `2026-04-31`, `24:00:00`
    /// or a month 13 give `None`, never a date rolled over into the next month.
    #[allow(clippy::many_single_char_names)] // y, m, d, h, s: the fields of a date
    pub fn parse(text: &str) -> Option<Self> {
        let t = text.trim();
        let date = t.get(..10)?;
        let b = date.as_bytes();
        let shaped = b[4] == b'-'
            && b[7] == b'-'
            && b.iter()
                .enumerate()
                .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
        if !shaped {
            return None;
        }
        let y: i64 = date[..4].parse().ok()?;
        let m: i64 = date[5..7].parse().ok()?;
        let d: i64 = date[8..10].parse().ok()?;
        if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
            return None;
        }
        let mut secs = days_from_civil(y, m, d) * 86_400;
        let rest = &t[10..];
        if rest.is_empty() {
            return Some(Self::from_unix_seconds(secs));
        }
        let rest = rest.strip_prefix(['T', 't', ' '])?;
        let hms = rest.get(..8)?;
        let mut p = hms.split(':');
        let h: i64 = p.next()?.parse().ok()?;
        let mi: i64 = p.next()?.parse().ok()?;
        let s: i64 = p.next()?.parse().ok()?;
        let digits = |x: &str| x.len() == 2 && x.bytes().all(|c| c.is_ascii_digit());
        if !hms.split(':').all(digits) || h > 23 || mi > 59 || s > 59 {
            return None;
        }
        secs += h * 3600 + mi * 60 + s;
        let mut tail = &rest[8..];
        let mut micros = 0i64;
        if let Some(frac) = tail.strip_prefix('.') {
            let digits: String = frac.chars().take_while(char::is_ascii_digit).collect();
            tail = &frac[digits.len()..];
            let six: String = digits
                .chars()
                .chain(std::iter::repeat('0'))
                .take(6)
                .collect();
            micros = six.parse().ok()?;
        }
        match tail {
            "" | "Z" | "z" => {}
            tz => {
                let sign = match tz.as_bytes().first()? {
                    b'+' => 1,
                    b'-' => -1,
                    _ => return None,
                };
                if tz.len() != 6 || tz.as_bytes()[3] != b':' {
                    return None;
                }
                let oh: i64 = tz.get(1..3)?.parse().ok()?;
                let om: i64 = tz.get(4..6)?.parse().ok()?;
                if oh > 23 || om > 59 {
                    return None;
                }
                secs -= sign * (oh * 3600 + om * 60);
            }
        }
        Some(Self(secs * 1_000_000 + micros))
    }

    /// The date part, `YYYY-MM-DD`.
    pub fn date_string(self) -> String {
        let (y, m, d) = civil_from_days(self.unix_seconds().div_euclid(86_400));
        format!("{y:04}-{m:02}-{d:02}")
    }
}

#[allow(clippy::many_single_char_names)] // y, m, d, r: the fields of a date
impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secs = self.unix_seconds();
        let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
        let r = secs.rem_euclid(86_400);
        write!(
            f,
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            r / 3600,
            r / 60 % 60,
            r % 60
        )
    }
}

/// Days in month `m` (1-12) of year `y` of the proleptic Gregorian calendar.
pub fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => 31,
    }
}

// Howard Hinnant's civil-date algorithms (public domain descriptions).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::Timestamp;

    #[test]
    fn parses_dates_and_rfc3339() {
        assert_eq!(Timestamp::parse("1970-01-02").unwrap().0, 86_400_000_000);
        let t = Timestamp::parse("2024-02-29T12:34:56.5Z").unwrap();
        assert_eq!(t.to_string(), "2024-02-29T12:34:56Z");
        assert_eq!(t.0 % 1_000_000, 500_000);
        let z = Timestamp::parse("2024-03-01T02:00:00+02:00").unwrap();
        assert_eq!(z.to_string(), "2024-03-01T00:00:00Z");
        assert_eq!(z.date_string(), "2024-03-01");
        assert!(Timestamp::parse("2024-13-01").is_none());
        assert!(Timestamp::parse("yesterday").is_none());
    }

    /// Regression: `2026-02-30` was read as 2 March, so `crawl --since 2026-02-30` ran
    /// with a cutoff nobody wrote.
    #[test]
    fn impossible_dates_and_times_are_refused() {
        for bad in [
            "2026-02-30",
            "2026-02-29",
            "2026-04-31",
            "2026-00-10",
            "2026-01-00",
            "2026-1-01",
            "20260-01-01",
            "2026-01-01T24:00:00Z",
            "2026-01-01T10:60:00Z",
            "2026-01-01T10:00:61Z",
            "2026-01-01T10:00:00+25:00",
            "2026-01-01T10:00:00+0200",
            "+026-01-01",
        ] {
            assert!(Timestamp::parse(bad).is_none(), "{bad} was accepted");
        }
        assert_eq!(
            Timestamp::parse("2024-02-29").unwrap().date_string(),
            "2024-02-29"
        );
        assert!(Timestamp::parse("2000-02-29").is_some());
        assert!(Timestamp::parse("1900-02-29").is_none());
        assert!(Timestamp::parse("2026-12-31T23:59:59Z").is_some());
    }
}
