// The chipkg query language, as a PEGTL 3 grammar. This header is the
// language's reference: query/README.md explains it with examples, the rules
// below are the exact syntax. One named rule per construct; keywords are whole
// words, case-insensitive, and reserved (they cannot name an attribute, a kind
// or an entity without quotes), except `evidence`: it only follows `with`,
// which is reserved, and the data-center schema has an attribute of that name.
//
//   query       := statement clause* [';'] end
//   statement   := 'find' KIND ['where' condition]
//                | 'count' KIND ['where' condition]
//                | 'facts' ['about' ENTITY]
//                | 'conflicts' ['in' KIND] ['about' ENTITY]
//                | ENTITY '.' (call | attribute)
//   condition   := conjunction ('or' conjunction)*
//   conjunction := factor ('and' factor)*
//   factor      := 'not' factor | '(' condition ')' | call | comparison
//   comparison  := attribute OP value          OP: = == != <> < <= > >= contains
//   attribute   := NAME ['{' KEY '=' VALUE (',' KEY '=' VALUE)* '}']
//   call        := NAME '(' [argument (',' argument)*] ')'
//   argument    := NAME number [unit] | "string" | number [unit] | attribute
//   value       := "string" | DATE | number [unit] | true | false | WORD
//   clause      := 'show' item (',' item)*          item: call | attribute
//                | 'order' 'by' attribute ['asc'|'desc'] (',' ...)*
//                | 'by' attribute                   count: one count per value of it
//                | 'limit' INTEGER
//                | 'using' source (',' source)*     source: KIND-OF-DOCUMENT | 'site' HOST
//                | 'prefer' source (',' source)*
//                | 'from' 'document' DOCUMENT-ID
//                | 'as' 'of' DATE                   valid time
//                | 'as' 'at' ('tx' N | 'run' ID | TIMESTAMP | DATE)   transaction time
//                | 'tolerance' number '%'
//                | 'with' 'evidence'                one row per way the condition is supported
//                | 'ignoring' 'not_published'       leave "not published" claims out
//
// Error reporting: every place where the parser has committed (after a
// keyword, an operator, an opening bracket) names the rule it expects next;
// each such rule has its message in the one table `error_message` at the end
// of this file, and a missing message is a compile error (must_if with
// RequireMessage). Rules carrying a message are used only in committed
// positions, because with must_if a rule with a message raises wherever it
// fails.
//
// Nesting depth (parentheses, chains of 'not') is bounded by the parser
// (query/parser.cpp), not here, so the grammar stays free of state.
#pragma once

#include <tao/pegtl.hpp>

namespace chipkg::query::grammar {

// The grammar reads best with the combinators unqualified; this namespace
// holds nothing but rules.
using tao::pegtl::alnum;
using tao::pegtl::alpha;
using tao::pegtl::at;
using tao::pegtl::digit;
using tao::pegtl::eof;
using tao::pegtl::eolf;
using tao::pegtl::identifier;
using tao::pegtl::identifier_other;
using tao::pegtl::if_must;
using tao::pegtl::istring;
using tao::pegtl::must;
using tao::pegtl::not_at;
using tao::pegtl::not_one;
using tao::pegtl::one;
using tao::pegtl::opt;
using tao::pegtl::plus;
using tao::pegtl::rep;
using tao::pegtl::rep_min_max;
using tao::pegtl::seq;
using tao::pegtl::sor;
using tao::pegtl::star;
using tao::pegtl::string;
using tao::pegtl::until;

// ---------------------------------------------------------------------------
// Lexical layer. `sp` (blanks and '#' comments) follows every token, so a
// rule's position is always the first character of what it expects.

struct comment : seq<one<'#'>, until<eolf>> {};
struct blank : sor<one<' ', '\t', '\r', '\n'>, comment> {};
struct sp : star<blank> {};

// A keyword: the word in any case, not followed by a letter, digit or '_'.
template <typename Word>
struct word_boundary : seq<Word, not_at<identifier_other>> {};
template <typename Word>
struct keyword : seq<word_boundary<Word>, sp> {};

struct kw_find : keyword<TAO_PEGTL_ISTRING("find")> {};
struct kw_count : keyword<TAO_PEGTL_ISTRING("count")> {};
struct kw_facts : keyword<TAO_PEGTL_ISTRING("facts")> {};
struct kw_conflicts : keyword<TAO_PEGTL_ISTRING("conflicts")> {};
struct kw_about : keyword<TAO_PEGTL_ISTRING("about")> {};
struct kw_where : keyword<TAO_PEGTL_ISTRING("where")> {};
struct kw_and : keyword<TAO_PEGTL_ISTRING("and")> {};
struct kw_or : keyword<TAO_PEGTL_ISTRING("or")> {};
struct kw_not : keyword<TAO_PEGTL_ISTRING("not")> {};
struct kw_show : keyword<TAO_PEGTL_ISTRING("show")> {};
struct kw_order : keyword<TAO_PEGTL_ISTRING("order")> {};
struct kw_by : keyword<TAO_PEGTL_ISTRING("by")> {};
struct kw_asc : keyword<TAO_PEGTL_ISTRING("asc")> {};
struct kw_desc : keyword<TAO_PEGTL_ISTRING("desc")> {};
struct kw_limit : keyword<TAO_PEGTL_ISTRING("limit")> {};
struct kw_using : keyword<TAO_PEGTL_ISTRING("using")> {};
struct kw_prefer : keyword<TAO_PEGTL_ISTRING("prefer")> {};
struct kw_site : keyword<TAO_PEGTL_ISTRING("site")> {};
struct kw_from : keyword<TAO_PEGTL_ISTRING("from")> {};
struct kw_document : keyword<TAO_PEGTL_ISTRING("document")> {};
struct kw_as : keyword<TAO_PEGTL_ISTRING("as")> {};
struct kw_of : keyword<TAO_PEGTL_ISTRING("of")> {};
struct kw_at : keyword<TAO_PEGTL_ISTRING("at")> {};
struct kw_tx : keyword<TAO_PEGTL_ISTRING("tx")> {};
struct kw_run : keyword<TAO_PEGTL_ISTRING("run")> {};
struct kw_tolerance : keyword<TAO_PEGTL_ISTRING("tolerance")> {};
struct kw_true : keyword<TAO_PEGTL_ISTRING("true")> {};
struct kw_false : keyword<TAO_PEGTL_ISTRING("false")> {};
struct kw_contains : keyword<TAO_PEGTL_ISTRING("contains")> {};
struct kw_in : keyword<TAO_PEGTL_ISTRING("in")> {};
struct kw_with : keyword<TAO_PEGTL_ISTRING("with")> {};
struct kw_evidence : keyword<TAO_PEGTL_ISTRING("evidence")> {};
struct kw_ignoring : keyword<TAO_PEGTL_ISTRING("ignoring")> {};
struct kw_is : keyword<TAO_PEGTL_ISTRING("is")> {};

struct reserved_word
    : sor<kw_find, kw_count, kw_facts, kw_conflicts, kw_about, kw_where, kw_and, kw_or, kw_not, kw_show,
          kw_order, kw_by, kw_asc, kw_desc, kw_limit, kw_using, kw_prefer, kw_site, kw_from, kw_document, kw_as,
          kw_of, kw_at, kw_tx, kw_run, kw_tolerance, kw_true, kw_false, kw_contains, kw_in, kw_with,
          kw_ignoring> {};

// A name that is not a keyword: attributes, kinds, entities, functions.
struct name : seq<not_at<reserved_word>, identifier> {};

struct comma : seq<one<','>, sp> {};
struct open_paren : seq<one<'('>, sp> {};
struct open_brace : seq<one<'{'>, sp> {};
struct dot : seq<one<'.'>, sp> {};

// Numbers: 64, 2.9, 1e12, -3, and thousands groups as pages write them (2,900).
struct digits : plus<digit> {};
struct sign : one<'+', '-'> {};
struct thousands_group : seq<one<','>, rep<3, digit>, not_at<digit>> {};
struct fraction : seq<one<'.'>, digits> {};
struct exponent : seq<one<'e', 'E'>, opt<sign>, digits> {};
struct number : seq<opt<sign>, digits, star<thousands_group>, opt<fraction>, opt<exponent>> {};
struct integer : seq<digits, not_at<one<'.', ','>>> {};

// A unit as the schema spells it: GB, GiB, TB/s, TFLOPS/W, $/hr, mm^2, or '%'.
struct unit_first : sor<alpha, one<'$'>> {};
// A hyphen joins words of one unit (bit-op/s), never a number to it.
struct unit_rest : sor<alnum, one<'/', '^', '$', '_'>, seq<one<'-'>, alpha>> {};
struct unit : sor<one<'%'>, seq<not_at<reserved_word>, unit_first, star<unit_rest>>> {};
struct quantity : seq<number, sp, opt<unit, sp>> {};

// ISO dates at year-month or day precision (a bare year is a number the
// binder reads as a year when the attribute is a date), and timestamps.
struct two_digits : rep<2, digit> {};
struct four_digits : rep<4, digit> {};
struct date_literal : seq<four_digits, one<'-'>, two_digits, opt<one<'-'>, two_digits>, not_at<identifier_other>> {};
// An hour of one digit (9:00) as people write it; "UTC" after a space as
// `date -u` and chipkg's own listings print it.
struct clock_time : seq<rep_min_max<1, 2, digit>, one<':'>, two_digits, opt<one<':'>, two_digits>> {};
struct utc_zone : sor<one<'Z', 'z'>, seq<plus<one<' '>>, istring<'u', 't', 'c'>>> {};
struct timestamp_literal
    : seq<four_digits, one<'-'>, two_digits, one<'-'>, two_digits, one<'T', 't', ' '>, clock_time, opt<utc_zone>,
          not_at<identifier_other>> {};

// Strings in double or single quotes; backslash escapes the quote and itself.
struct escaped_char : one<'"', '\'', '\\'> {};
struct escape_sequence : if_must<one<'\\'>, escaped_char> {};
template <char Quote>
struct string_char : sor<escape_sequence, not_one<Quote, '\\'>> {};
struct double_quoted_rest : until<one<'"'>, string_char<'"'>> {};
struct single_quoted_rest : until<one<'\''>, string_char<'\''>> {};
// Curly double quotes, as names pasted from documents and chat come: “Llama
// 3.1 70B”, closed by ” (or "), without escapes. (Curly single quotes are
// apostrophes inside names: "Amazon’s".)
struct curly_open : string<'\xE2', '\x80', '\x9C'> {};
struct curly_close : sor<string<'\xE2', '\x80', '\x9D'>, one<'"'>> {};
struct curly_quoted_rest : until<curly_close> {};
struct string_literal
    : sor<if_must<one<'"'>, double_quoted_rest>, if_must<one<'\''>, single_quoted_rest>, if_must<curly_open, curly_quoted_rest>> {};

// ---------------------------------------------------------------------------
// Attributes, calls and values.

// memory, bf16, peak_throughput{format=fp8, sparsity=dense}
struct attribute_name : name {};
struct qualifier_key : name {};
// ':' for an entity's id as answers print it: {model=llm:llama-3.1-70b}.
struct qualifier_word : plus<sor<alnum, one<'_', '-', '.', '+', ':'>>> {};
struct qualifier_value : sor<string_literal, qualifier_word> {};
struct qualifier_value_expected : seq<qualifier_value, sp> {};
struct equals_expected : seq<one<'='>, sp> {};
struct qualifier : seq<qualifier_key, sp, must<equals_expected, qualifier_value_expected>> {};
struct qualifier_expected : seq<qualifier> {};
struct qualifier_end : seq<one<'}'>, sp> {};
struct qualifier_filter : seq<if_must<open_brace, qualifier_expected>, star<if_must<comma, qualifier_expected>>,
                              must<qualifier_end>> {};
struct attribute_ref : seq<attribute_name, sp, opt<qualifier_filter>> {};

// fits("Llama 3.1 70B", int4, headroom 15%), reported(foundry)
struct function_name : name {};
struct option_name : name {};
struct option_argument : seq<option_name, sp, at<sor<digit, sign, one<'.'>>>, quantity> {};
struct argument : sor<option_argument, seq<string_literal, sp>, seq<date_literal, sp>, quantity, attribute_ref> {};
struct argument_expected : seq<argument> {};
struct call_end : seq<one<')'>, sp> {};
struct arguments : seq<argument, star<if_must<comma, argument_expected>>> {};
struct call : seq<function_name, sp, open_paren, opt<arguments>, must<call_end>> {};

// The right-hand side of a comparison.
struct boolean_literal : sor<word_boundary<TAO_PEGTL_ISTRING("true")>, word_boundary<TAO_PEGTL_ISTRING("false")>> {};
struct word_literal : name {};
struct value : sor<string_literal, date_literal, quantity, boolean_literal, word_literal> {};
struct value_expected : seq<value, sp> {};

struct contains_operator : word_boundary<TAO_PEGTL_ISTRING("contains")> {};
struct comparison_operator
    : sor<string<'<', '='>, string<'>', '='>, string<'!', '='>, string<'<', '>'>, string<'=', '='>, one<'='>,
          one<'<'>, one<'>'>, contains_operator> {};
struct comparison_operator_expected : seq<comparison_operator, sp> {};

// ---------------------------------------------------------------------------
// Conditions: 'not' binds tightest, then 'and', then 'or'.

struct condition;
struct group_end : seq<one<')'>, sp> {};
struct group : if_must<open_paren, condition, group_end> {};
struct comparison : if_must<attribute_ref, comparison_operator_expected, value_expected> {};
// "foundry is reported", "memory is not published", "tdp is not unknown": the
// tests reported(a), not_published(a), unknown(a) and conflicting(a) as a
// researcher says them ("published" is "reported").
struct state_not_published
    : sor<seq<word_boundary<TAO_PEGTL_ISTRING("not")>, sp, word_boundary<TAO_PEGTL_ISTRING("published")>>,
          word_boundary<TAO_PEGTL_ISTRING("not_published")>> {};
struct state_negated : kw_not {};
struct state_name
    : sor<word_boundary<TAO_PEGTL_ISTRING("reported")>, word_boundary<TAO_PEGTL_ISTRING("published")>,
          word_boundary<TAO_PEGTL_ISTRING("unknown")>, word_boundary<TAO_PEGTL_ISTRING("conflicting")>> {};
struct state_expected : seq<sor<state_not_published, seq<opt<state_negated>, state_name>>, sp> {};
struct state_test : seq<attribute_ref, kw_is, must<state_expected>> {};
struct negation;
struct factor : sor<negation, group, call, state_test, comparison> {};
struct factor_expected : seq<factor> {};
struct negation : if_must<kw_not, factor_expected> {};
struct conjunction : seq<factor, star<if_must<kw_and, factor_expected>>> {};
struct disjunction_rest : seq<conjunction> {};
struct disjunction : seq<conjunction, star<if_must<kw_or, disjunction_rest>>> {};
struct condition : seq<disjunction> {};

// ---------------------------------------------------------------------------
// Statements.

struct kind_name : name {};
struct kind_expected : seq<kind_name, sp> {};
struct entity_word : name {};
struct entity_ref : sor<string_literal, entity_word> {};
struct entity_expected : seq<entity_ref, sp> {};

struct where_clause : if_must<kw_where, condition> {};
struct find_statement : seq<if_must<kw_find, kind_expected>, opt<where_clause>> {};
struct count_statement : seq<if_must<kw_count, kind_expected>, opt<where_clause>> {};
struct about_clause : if_must<kw_about, entity_expected> {};
struct facts_statement : seq<kw_facts, opt<about_clause>> {};
struct in_kind : if_must<kw_in, kind_expected> {};
struct conflicts_statement : seq<kw_conflicts, opt<in_kind>, opt<about_clause>> {};
// trainium2.memory_bandwidth, "AWS Trainium 2".fits("Llama 3.1 70B", int8)
struct member : sor<call, attribute_ref> {};
struct member_expected : seq<member> {};
struct lookup_statement : if_must<seq<entity_ref, sp, dot>, member_expected> {};
struct statement : sor<find_statement, count_statement, facts_statement, conflicts_statement, lookup_statement> {};
struct statement_expected : seq<statement> {};

// ---------------------------------------------------------------------------
// Clauses, in any order after the statement (the binder refuses repeats).

struct column : sor<call, attribute_ref> {};
struct column_expected : seq<column> {};
struct show_clause : seq<if_must<kw_show, column_expected>, star<if_must<comma, column_expected>>> {};

struct direction : sor<word_boundary<TAO_PEGTL_ISTRING("asc")>, word_boundary<TAO_PEGTL_ISTRING("desc")>> {};
struct order_key : seq<attribute_ref, opt<direction, sp>> {};
struct order_key_expected : seq<order_key> {};
struct by_expected : seq<kw_by> {};
struct order_clause : seq<if_must<kw_order, by_expected, order_key_expected>, star<if_must<comma, order_key_expected>>> {};

// `count chip by designer`: one count per value of an attribute.
struct group_key_expected : seq<attribute_ref> {};
struct group_clause : if_must<kw_by, group_key_expected> {};

struct limit_count_expected : seq<integer, sp> {};
struct limit_clause : if_must<kw_limit, limit_count_expected> {};

// Sources: a document kind ("vendor", "press", "aggregator") or a site.
struct site_word : plus<sor<alnum, one<'.', '-', '_', ':'>>> {};
struct site_name : sor<string_literal, site_word> {};
struct site_name_expected : seq<site_name, sp> {};
struct site_source : if_must<kw_site, site_name_expected> {};
struct document_kind : name {};
struct source : sor<site_source, seq<document_kind, sp>> {};
struct source_expected : seq<source> {};
struct using_clause : seq<if_must<kw_using, source_expected>, star<if_must<comma, source_expected>>> {};
struct prefer_clause : seq<if_must<kw_prefer, source_expected>, star<if_must<comma, source_expected>>> {};

struct document_word : plus<sor<alnum, one<'_', '.', ':', '/', '-', '~'>>> {};
struct document_id : sor<string_literal, document_word> {};
struct document_id_expected : seq<document_id, sp> {};
struct document_expected : seq<kw_document> {};
struct from_clause : if_must<kw_from, document_expected, document_id_expected> {};

struct year_literal : seq<four_digits, not_at<identifier_other>> {};
struct valid_date_expected : seq<sor<date_literal, year_literal>, sp> {};
struct valid_time : if_must<kw_of, valid_date_expected> {};
struct tx_number_expected : seq<integer, sp> {};
struct tx_point : if_must<kw_tx, tx_number_expected> {};
struct run_word : plus<sor<alnum, one<'_', '.', ':', '-'>>> {};
struct run_id : sor<string_literal, run_word> {};
struct run_id_expected : seq<run_id, sp> {};
struct run_point : if_must<kw_run, run_id_expected> {};
struct time_point : sor<timestamp_literal, date_literal> {};
struct transaction_point_expected : seq<sor<tx_point, run_point, seq<time_point, sp>>> {};
struct transaction_time : if_must<kw_at, transaction_point_expected> {};
struct as_target_expected : seq<sor<valid_time, transaction_time>> {};
struct as_clause : if_must<kw_as, as_target_expected> {};

struct percentage_expected : seq<number, sp, one<'%'>, sp> {};
struct tolerance_clause : if_must<kw_tolerance, percentage_expected> {};

struct evidence_expected : seq<kw_evidence> {};
struct evidence_clause : if_must<kw_with, evidence_expected> {};
struct ignored_claims : word_boundary<TAO_PEGTL_ISTRING("not_published")> {};
struct ignored_claims_expected : seq<ignored_claims, sp> {};
struct ignoring_clause : if_must<kw_ignoring, ignored_claims_expected> {};

struct clause
    : sor<show_clause, order_clause, group_clause, limit_clause, using_clause, prefer_clause, from_clause,
          as_clause, tolerance_clause, evidence_clause, ignoring_clause> {};

struct end_of_query : eof {};
struct query : seq<sp, must<statement_expected>, star<clause>, opt<one<';'>, sp>, must<end_of_query>> {};

// ---------------------------------------------------------------------------
// What the parser says when a committed rule does not match. The parser
// prefixes line:column and adds the offending line with a caret under the spot.

template <typename Rule>
inline constexpr const char* error_message = nullptr;

template <> inline constexpr const char* error_message<statement_expected> =
    "expected a query: 'find KIND [where ...]', 'count KIND [where ...]', 'ENTITY.ATTRIBUTE', "
    "'facts about ENTITY' or 'conflicts'";
template <> inline constexpr const char* error_message<end_of_query> =
    "expected 'and', 'or', a clause (show, order by, limit, using, prefer, from document, as of, as at, "
    "tolerance, with evidence, ignoring not_published) or the end of the query";
template <> inline constexpr const char* error_message<kind_expected> =
    "expected an entity kind such as chip, llm, instance_type or data_center";
template <> inline constexpr const char* error_message<entity_expected> =
    "expected an entity: a name such as trainium2 or a quoted name such as \"AWS Trainium 2\"";
template <> inline constexpr const char* error_message<member_expected> =
    "expected an attribute or a test after '.', e.g. trainium2.memory";
template <> inline constexpr const char* error_message<condition> =
    "expected a condition: a comparison such as memory >= 64 GB, a test such as reported(foundry), "
    "'not ...' or '( ... )'";
template <> inline constexpr const char* error_message<factor_expected> =
    "expected a condition: a comparison such as memory >= 64 GB, a test such as reported(foundry), "
    "'not ...' or '( ... )'";
template <> inline constexpr const char* error_message<disjunction_rest> =
    "expected a condition after 'or'";
template <> inline constexpr const char* error_message<group_end> =
    "expected ')' to close the group, or 'and'/'or' to continue the condition";
template <> inline constexpr const char* error_message<comparison_operator_expected> =
    "expected a comparison operator after the attribute: =, !=, <, <=, >, >= or contains";
template <> inline constexpr const char* error_message<state_expected> =
    "expected reported, not published, unknown or conflicting after 'is' (a value is compared with '=', "
    "as in foundry = TSMC)";
template <> inline constexpr const char* error_message<value_expected> =
    "expected a value to compare with: a number with a unit (64 GB), a date (2024-06), a quoted name, "
    "true/false, or a word such as TSMC";
template <> inline constexpr const char* error_message<qualifier_expected> =
    "expected a qualifier such as format=fp8";
template <> inline constexpr const char* error_message<equals_expected> =
    "expected '=' between the qualifier and its value, as in format=fp8";
template <> inline constexpr const char* error_message<qualifier_value_expected> =
    "expected a qualifier value such as fp8, dense or \"1-yr reserved\"";
template <> inline constexpr const char* error_message<qualifier_end> =
    "expected ',' or '}' after the qualifier";
template <> inline constexpr const char* error_message<argument_expected> =
    "expected an argument: a quoted name, a word such as int8, a number, or an option such as headroom 15%";
template <> inline constexpr const char* error_message<call_end> =
    "expected ')' to close the argument list (arguments are separated by ',')";
template <> inline constexpr const char* error_message<escaped_char> =
    "unknown escape in string: write \\\" or \\' for a quote and \\\\ for a backslash";
template <> inline constexpr const char* error_message<double_quoted_rest> =
    "unterminated string: expected a closing \"";
template <> inline constexpr const char* error_message<single_quoted_rest> =
    "unterminated string: expected a closing '";
template <> inline constexpr const char* error_message<curly_quoted_rest> =
    "unterminated string: expected a closing \xE2\x80\x9D";
template <> inline constexpr const char* error_message<column_expected> =
    "expected an attribute to show, e.g. show memory, foundry";
template <> inline constexpr const char* error_message<by_expected> =
    "expected 'by' after 'order'";
template <> inline constexpr const char* error_message<order_key_expected> =
    "expected an attribute to order by, e.g. order by memory desc";
template <> inline constexpr const char* error_message<group_key_expected> =
    "expected an attribute to count by: count chip by designer";
template <> inline constexpr const char* error_message<limit_count_expected> =
    "expected a whole number after 'limit'";
template <> inline constexpr const char* error_message<source_expected> =
    "expected a kind of source (vendor, press, aggregator, ...) or 'site' and a host name";
template <> inline constexpr const char* error_message<site_name_expected> =
    "expected a site such as aws.amazon.com after 'site'";
template <> inline constexpr const char* error_message<document_expected> =
    "expected 'document' after 'from', as in from document ID";
template <> inline constexpr const char* error_message<document_id_expected> =
    "expected a document id after 'from document'";
template <> inline constexpr const char* error_message<as_target_expected> =
    "expected 'of DATE' (valid time) or 'at tx N', 'at run ID', 'at DATE' (transaction time) after 'as'";
template <> inline constexpr const char* error_message<valid_date_expected> =
    "expected a date after 'as of': 2024, 2024-06 or 2024-06-01";
template <> inline constexpr const char* error_message<transaction_point_expected> =
    "expected 'tx N', 'run ID', a date (2025-01-31) or a timestamp (2025-01-31T12:00:00Z) after 'as at'";
template <> inline constexpr const char* error_message<tx_number_expected> =
    "expected a transaction number after 'tx'";
template <> inline constexpr const char* error_message<run_id_expected> =
    "expected an ingest run id after 'run'";
template <> inline constexpr const char* error_message<evidence_expected> =
    "expected 'evidence' after 'with'";
template <> inline constexpr const char* error_message<ignored_claims_expected> =
    "expected 'not_published' after 'ignoring'";
template <> inline constexpr const char* error_message<percentage_expected> =
    "expected a percentage after 'tolerance', e.g. tolerance 5%";

struct errors {
  template <typename Rule>
  static constexpr const char* message = error_message<Rule>;
};

template <typename Rule>
using control = tao::pegtl::must_if<errors>::control<Rule>;

}  // namespace chipkg::query::grammar
