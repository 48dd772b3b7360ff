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
