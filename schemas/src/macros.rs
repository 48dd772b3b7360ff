//! The declaration macros: one declaration gives the row struct, its documented Arrow
//! schema and its place in the contract.

/// Declares a nested record (an Arrow struct column type).
#[macro_export]
macro_rules! record {
    (
        $(#[doc = $tdoc:literal])*
        pub struct $name:ident {
            $( $(#[doc = $fdoc:literal])+ pub $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[doc = $tdoc])*
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
        pub struct $name {
            $( $(#[doc = $fdoc])+ pub $field: $ty, )*
        }

        impl $crate::types::ArrowType for $name {
            fn data_type() -> arrow::datatypes::DataType {
                arrow::datatypes::DataType::Struct(<$name as $crate::table::Described>::fields().into())
            }
        }

        impl $crate::table::Described for $name {
            fn columns() -> Vec<$crate::table::ColumnDoc> {
                vec![$(
                    $crate::table::ColumnDoc {
                        name: stringify!($field),
                        data_type: <$ty as $crate::types::ArrowType>::data_type(),
                        nullable: <$ty as $crate::types::ArrowType>::NULLABLE,
                        doc: $crate::table::join_doc(&[$($fdoc),+]),
                        values: <$ty as $crate::types::ArrowType>::values(),
                    },
                )*]
            }
        }
    };
}

/// Declares a table: its row struct, its file name and the documentation of every column.
#[macro_export]
macro_rules! table {
    (
        $(#[doc = $tdoc:literal])+
        pub struct $name:ident in $table:literal written_by $writer:literal {
            $( $(#[doc = $fdoc:literal])+ pub $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $crate::record! {
            $(#[doc = $tdoc])+
            pub struct $name { $( $(#[doc = $fdoc])+ pub $field : $ty ),* }
        }

        impl $crate::table::Table for $name {
            const NAME: &'static str = $table;
            const WRITER: &'static str = $writer;
            fn doc() -> String {
                $crate::table::join_doc(&[$($tdoc),+])
            }
        }
    };
}

/// Declares a closed vocabulary stored as text: an enum whose variants are written as the
/// given strings in tables (a `Utf8` column), in serde, by `Display` and `as_str`, and read
/// back by `FromStr` (which names the allowed values on a mismatch). `TABLES.md` lists them.
#[macro_export]
macro_rules! text_enum {
    (
        $(#[doc = $tdoc:literal])*
        pub enum $name:ident {
            $( $(#[doc = $vdoc:literal])* $variant:ident = $text:literal ),* $(,)?
        }
    ) => {
        $(#[doc = $tdoc])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize,
        )]
        pub enum $name {
            $( $(#[doc = $vdoc])* #[serde(rename = $text)] $variant, )*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            /// Every value's text, in declaration order.
            pub const TEXTS: &'static [&'static str] = &[$($text),*];

            /// The text stored in tables.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::types::UnknownText;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($text => Ok($name::$variant),)*
                    _ => Err($crate::types::UnknownText {
                        what: stringify!($name),
                        text: s.to_string(),
                        allowed: Self::TEXTS,
                    }),
                }
            }
        }

        impl $crate::types::ArrowType for $name {
            fn data_type() -> arrow::datatypes::DataType {
                arrow::datatypes::DataType::Utf8
            }
            fn values() -> Option<&'static [&'static str]> {
                Some(Self::TEXTS)
            }
        }
    };
}
