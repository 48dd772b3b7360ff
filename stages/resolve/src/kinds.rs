//! The tree-sitter-python language, and the numeric ids of the node kinds and fields the
//! analysis looks at, resolved once so that the walk compares integers, not strings.

use std::sync::OnceLock;

use tree_sitter::Language;

/// The tree-sitter-python grammar.
pub(crate) fn language() -> &'static Language {
    static LANG: OnceLock<Language> = OnceLock::new();
    LANG.get_or_init(|| tree_sitter_python::LANGUAGE.into())
}

macro_rules! ids {
    ($ty:ident, $lookup:ident, { $($field:ident = $name:literal),* $(,)? }) => {
        /// Ids resolved from the grammar by name.
        pub(crate) struct $ty { $(pub $field: u16,)* }
        impl $ty {
            fn load(lang: &Language) -> Self {
                Self { $($field: $lookup(lang, $name),)* }
            }
        }
    };
}

fn kind(lang: &Language, name: &str) -> u16 {
    let id = lang.id_for_node_kind(name, true);
    assert!(id != 0, "tree-sitter-python has no node kind `{name}`: grammar version mismatch (a bug in freshbench's build)");
    id
}

fn field(lang: &Language, name: &str) -> u16 {
    lang.field_id_for_name(name).map_or_else(
        || panic!("tree-sitter-python has no field `{name}`: grammar version mismatch (a bug in freshbench's build)"),
        std::num::NonZeroU16::get,
    )
}

ids!(Kinds, kind, {
    aliased_import = "aliased_import",
    as_pattern = "as_pattern",
    as_pattern_target = "as_pattern_target",
    assignment = "assignment",
    attribute = "attribute",
    augmented_assignment = "augmented_assignment",
    boolean_operator = "boolean_operator",
    call = "call",
    case_clause = "case_clause",
    case_pattern = "case_pattern",
    class_definition = "class_definition",
    class_pattern = "class_pattern",
    comment = "comment",
    concatenated_string = "concatenated_string",
    conditional_expression = "conditional_expression",
    decorated_definition = "decorated_definition",
    decorator = "decorator",
    default_parameter = "default_parameter",
    delete_statement = "delete_statement",
    dict_pattern = "dict_pattern",
    dictionary_comprehension = "dictionary_comprehension",
    dictionary_splat_pattern = "dictionary_splat_pattern",
    dotted_name = "dotted_name",
    elif_clause = "elif_clause",
    except_clause = "except_clause",
    expression_list = "expression_list",
    expression_statement = "expression_statement",
    for_in_clause = "for_in_clause",
    for_statement = "for_statement",
    function_definition = "function_definition",
    future_import_statement = "future_import_statement",
    generator_expression = "generator_expression",
    global_statement = "global_statement",
    identifier = "identifier",
    if_clause = "if_clause",
    if_statement = "if_statement",
    import_from_statement = "import_from_statement",
    import_prefix = "import_prefix",
    import_statement = "import_statement",
    keyword_argument = "keyword_argument",
    keyword_pattern = "keyword_pattern",
    keyword_separator = "keyword_separator",
    lambda = "lambda",
    list = "list",
    list_comprehension = "list_comprehension",
    list_pattern = "list_pattern",
    list_splat = "list_splat",
    list_splat_pattern = "list_splat_pattern",
    named_expression = "named_expression",
    nonlocal_statement = "nonlocal_statement",
    parenthesized_expression = "parenthesized_expression",
    pattern_list = "pattern_list",
    positional_separator = "positional_separator",
    relative_import = "relative_import",
    return_statement = "return_statement",
    set_comprehension = "set_comprehension",
    string = "string",
    string_content = "string_content",
    tuple = "tuple",
    tuple_pattern = "tuple_pattern",
    type_alias_statement = "type_alias_statement",
    typed_default_parameter = "typed_default_parameter",
    typed_parameter = "typed_parameter",
    while_statement = "while_statement",
    wildcard_import = "wildcard_import",
    yield_ = "yield",
});

ids!(Fields, field, {
    alias = "alias",
    attribute = "attribute",
    body = "body",
    definition = "definition",
    function = "function",
    key = "key",
    left = "left",
    module_name = "module_name",
    name = "name",
    object = "object",
    parameters = "parameters",
    return_type = "return_type",
    right = "right",
    superclasses = "superclasses",
    type_ = "type",
    type_parameters = "type_parameters",
    value = "value",
});

/// The node kind ids, resolved once.
pub(crate) fn kinds() -> &'static Kinds {
    static K: OnceLock<Kinds> = OnceLock::new();
    K.get_or_init(|| Kinds::load(language()))
}

/// The field ids, resolved once.
pub(crate) fn fields() -> &'static Fields {
    static F: OnceLock<Fields> = OnceLock::new();
    F.get_or_init(|| Fields::load(language()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_kind_and_field_exists_in_the_grammar() {
        // Loading panics on a name the grammar lacks.
        let k = super::kinds();
        let _ = super::fields();
        assert_ne!(k.identifier, k.attribute);
    }
}
