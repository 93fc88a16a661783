// The PEGTL grammar of a Paddle PIR program dump. Rules only: the actions
// that build the IR are in src/syntax/parser.cpp, the error messages for every
// `must` point in src/syntax/parse_errors.h. See docs/format.md for
// the format. Each rule an action hooks into has its own name.
//
//   () = "builtin.module" [id:1] () {program:0x..} : () ->   (optional module line)
//   {
//       ^kw:%kwarg_a                                   (optional block arguments,
//                                                       or `^kw:` and one a line)
//       (%0, %1) = "dialect.op" (%x, <<NULL VALUE>>) {k:v,...} : (Tx, T0) -> Ta, Tb
//       (%5) = "pd_op.if" (%4) {attrs} -> T {          (region ops)
//           ...
//       } else {
//           ...
//       }
//       (%6) = "cinn_op.group" [id:7] (%5) -> T {      (region op without attributes)
//           ...
//       }
//   }
//
// Whitespace between tokens is free (newlines included); the printer, not the
// grammar, decides the layout (the parser records the few layout choices
// Paddle's printers made differently over the years). Once a prefix is
// unambiguous, `if_must` commits, so a malformed op is reported where it goes
// wrong.
#pragma once

#include <tao/pegtl.hpp>

#include "grammar/fast_scan.h"

namespace reshardctl::grammar {

// clang-format off
using namespace tao::pegtl;

struct ws : space_run {};  // star< space > (fast_scan.h)
struct blanks : star< blank > {};
struct comma : seq< ws, one< ',' >, ws > {};
struct arrow : string< '-', '>' > {};

struct identifier_char : ranges< 'a', 'z', 'A', 'Z', '0', '9', '_' > {};
// plus< identifier_char > and plus< sor< identifier_char, one< '.' > > >, by a table (fast_scan.h).
struct identifier : identifier_run< false > {};
struct dotted_identifier : identifier_run< true > {};

// ---- values ---------------------------------------------------------------
struct value_name : seq< one< '%' >, identifier > {};
struct null_value : string< '<', '<', 'N', 'U', 'L', 'L', ' ', 'V', 'A', 'L', 'U', 'E', '>', '>' > {};

// ---- types ----------------------------------------------------------------
// Type text is kept verbatim; src/syntax/type_text.cpp interprets tensor types.
struct type;
struct null_type : string< '<', '<', 'N', 'U', 'L', 'L', ' ', 'T', 'Y', 'P', 'E', '>', '>' > {};
struct type_name : seq< ranges< 'a', 'z', 'A', 'Z', '_' >, opt< dotted_identifier > > {};
struct angle_open : one< '<' > {};
struct angle_close : one< '>' > {};
struct angle_body;
struct angle_contents : star< sor< angle_body, not_one< '<', '>', '\n', '\r' > > > {};
struct angle_body : if_must< angle_open, angle_contents, angle_close > {};
struct vec_open : seq< string< 'v', 'e', 'c' >, one< '[' > > {};
struct vec_close : one< ']' > {};
struct vec_elements : opt< list< type, comma > > {};
struct vec_type : if_must< vec_open, ws, vec_elements, ws, vec_close > {};
struct named_type : seq< type_name, opt< sor< fast_angle_body, angle_body > > > {};
struct type : sor< null_type, vec_type, named_type > {};

struct operand_type : type {};
struct result_type : type {};
struct operand_types : opt< list< operand_type, comma > > {};
struct result_types : opt< list< result_type, comma > > {};

// ---- attributes -----------------------------------------------------------
// Values are kept verbatim: a balanced run of strings, bracket groups and words.
struct attr_value;
struct escaped_char : seq< one< '\\' >, any > {};
struct string_close : one< '"' > {};
struct string_open : one< '"' > {};
struct string_chars : star< sor< escaped_char, not_one< '"', '\\' > > > {};
struct string_literal : if_must< string_open, string_chars, string_close > {};
struct word : plus< not_one< ',', '{', '}', '[', ']', '(', ')', '<', '>', '"',
                             ' ', '\t', '\n', '\r' > > {};
struct group_item;
struct group_contents : star< sor< group_item, one< ',' >, space > > {};
struct bracket_open : one< '[' > {};
struct bracket_close : one< ']' > {};
struct bracket_group : if_must< bracket_open, group_contents, bracket_close > {};
struct brace_open : one< '{' > {};
struct brace_close : one< '}' > {};
struct brace_group : if_must< brace_open, group_contents, brace_close > {};
struct paren_open : one< '(' > {};
struct paren_close : one< ')' > {};
struct paren_group : if_must< paren_open, group_contents, paren_close > {};
struct angle_group : if_must< angle_open, group_contents, angle_close > {};
struct group_item : sor< string_literal, bracket_group, brace_group, paren_group, angle_group,
                         word > {};
// The fast scan matches the same text; the structured rules report errors.
struct attr_value : sor< fast_attr_value, plus< group_item > > {};

struct attr_key : seq< dotted_identifier,
                       opt< one< '(' >, plus< digit >, one< ')' > > > {};
struct attr_colon : one< ':' > {};
struct attr_entry : if_must< attr_key, attr_colon, attr_value > {};
struct attr_dict_open : one< '{' > {};
struct attr_dict_close : one< '}' > {};
struct attr_entries : opt< list< attr_entry, comma > > {};
struct attr_dict : if_must< attr_dict_open, ws, attr_entries, ws, attr_dict_close > {};

// ---- ops and blocks -------------------------------------------------------
struct op;
// ` {k:v,...}` after a block argument the first time it is printed: 2025
// IrPrinter::PrintValue (paddle/pir/src/core/ir_printer.cc) writes the
// argument's attributes there, in `^kw:` lists, `^` lists and operand lists.
struct value_attrs : brace_group {};
struct value_attr_suffix : seq< blanks, value_attrs > {};
struct block_arg : value_name {};
struct block_arg_item : seq< block_arg, opt< value_attr_suffix > > {};
struct kwargs_marker : string< 'k', 'w', ':' > {};
struct block_args_open : one< '^' > {};
// `^kw:%kwarg_a, %kwarg_b` (2024), or since late 2024 IrPrinter::PrintBlock's
// `^kw:` alone on its line and each argument on a line of its own.
struct block_arg_separator : sor< comma, plus< space > > {};
struct block_arg_list : list< block_arg_item, block_arg_separator > {};
struct optional_kwargs_marker : opt< kwargs_marker > {};
// WhileOp::Print (paddle/fluid/pir/dialect/operator/ir/control_flow_op.cc)
// writes `^` then PrintInterleave of the body's arguments: for a body
// without arguments, `^` alone (a fuzzer finding: we printed it, then could
// not read it back). The whitespace before the first argument belongs to the
// list: with no argument it is given back to the block's line gap, so a line
// of blanks after a bare `^` is kept (print was not a fixed point).
struct optional_block_arg_list : opt< ws, block_arg_list > {};
struct block_args : if_must< block_args_open, optional_kwargs_marker, optional_block_arg_list > {};

// A line where the author of a fragment cut ops (`...`, `.....(省略)`): read
// only with --fragment (the parser's action decides), kept verbatim.
struct fragment_only : success {};
struct elision_line : seq< fragment_only, blanks, string< '.', '.', '.' >, star< not_one< '\n' > > > {};
// The whitespace between lines of a block: its actions keep lines that hold
// only blanks, which Paddle's printer writes for ops that print nothing.
struct line_gap : star< sor< space, elision_line > > {};
struct block_open : one< '{' > {};
struct block_close : one< '}' > {};
struct block_ops : star< line_gap, op > {};
struct block_body : seq< opt< line_gap, block_args >, block_ops, line_gap > {};
struct region_block : if_must< block_open, block_body, block_close > {};

struct op_begin : one< '(' > {};
struct result_def : value_name {};
struct result_defs : opt< list< result_def, comma > > {};
struct results_close : one< ')' > {};
struct op_equals : one< '=' > {};
struct quoted_op_name : seq< one< '"' >, plus< not_one< '"', '\n', '\r' > >, one< '"' > > {};
// Custom printers that wrote name() bare: IfOp::Print until May 2024
// (`= pd_op.if (`, control_flow_op.cc), GroupOp::Print from 2023 and
// FusionOp::Print of spring 2024 (`os << " = " << name();`,
// paddle/cinn/hlir/dialect/operator/ir/manual_op.cc; docs/format.md).
struct legacy_if_name : seq< TAO_PEGTL_STRING("pd_op.if"), not_at< identifier_char > > {};
struct legacy_group_name : seq< TAO_PEGTL_STRING("cinn_op.group"), not_at< identifier_char > > {};
struct legacy_fusion_name : seq< TAO_PEGTL_STRING("cinn_op.fusion"), not_at< identifier_char > > {};
struct unquoted_op_name : sor< legacy_if_name, legacy_group_name, legacy_fusion_name > {};
struct op_name : sor< quoted_op_name, unquoted_op_name > {};
// ` [id:963]` after the name: printed under FLAGS_pir_debug / FLAGS_print_ir.
struct op_id_number : plus< digit > {};
struct op_id_close : one< ']' > {};
struct op_id : if_must< string< '[', 'i', 'd', ':' >, op_id_number, op_id_close > {};
struct optional_op_id : opt< blanks, op_id > {};

struct operand_value : sor< null_value, value_name > {};
struct operand : seq< operand_value, opt< value_attr_suffix > > {};
struct operands_open : one< '(' > {};
struct operands_close : one< ')' > {};
struct operand_items : opt< list< operand, comma > > {};
struct operand_list : if_must< operands_open, ws, operand_items, ws, operands_close > {};

// pd_op.while: (cond=%c, inputs=%a, %b) { ^%arg_0, ... ops }
struct while_cond_key : string< 'c', 'o', 'n', 'd', '=' > {};
struct while_inputs_key : string< 'i', 'n', 'p', 'u', 't', 's', '=' > {};
struct while_operands : seq< operands_open, ws, while_cond_key, operand,
                             opt< comma, while_inputs_key, opt< list< operand, comma > > >,
                             ws, operands_close > {};
struct while_tail : if_must< at< operands_open, ws, while_cond_key >, while_operands, ws,
                             region_block > {};

// Region ops with a custom printer that ends the header in ` -> T1, T2 {`
// (with no results ` ->  {`, two spaces: `os << " -> "`, no types, `" {\n"`):
//   IfOp::Print, PyLayerOp::Print:  ... (%c) {attrs} -> T {block} else {block}
//   GroupOp::Print, FusionOp::Print ... (%x) -> T {block}   (no attribute dict;
//     paddle/cinn/hlir/dialect/operator/ir/manual_op.cc)
// The space before `{` is kept as read (`-> T{` until May 2024).
struct else_keyword : string< 'e', 'l', 's', 'e' > {};
struct else_region : if_must< else_keyword, ws, region_block > {};
struct optional_else : opt< ws, else_region > {};
struct brace_gap : star< space > {};
struct arrow_tail : if_must< arrow, blanks, result_types, brace_gap, region_block, optional_else > {};

// Generic form: ... {attrs} : (Tx, Ty) -> Ta, Tb, then any regions on the next lines.
struct signature_colon : one< ':' > {};
struct operand_types_open : one< '(' > {};
struct operand_types_close : one< ')' > {};
struct signature_arrow : arrow {};
struct generic_regions : star< ws, region_block > {};
struct signature_tail : if_must< signature_colon, ws, operand_types_open, ws, operand_types, ws,
                                 operand_types_close, ws, signature_arrow, blanks, result_types,
                                 generic_regions > {};

struct op_signature : sor< arrow_tail, signature_tail > {};
struct attributed_tail : seq< attr_dict, ws, op_signature > {};
struct op_rest : sor< arrow_tail, attributed_tail > {};
struct standard_tail : if_must< operand_list, ws, op_rest > {};
struct op_tail : sor< while_tail, standard_tail > {};
struct op : if_must< op_begin, ws, result_defs, ws, results_close, ws, op_equals, ws, op_name,
                     optional_op_id, ws, op_tail > {};

// The module op's own line before the body, when the module op itself was
// printed (pass instrumentation's PrintIR → Operation::Print →
// IrPrinter::PrintGeneralOperation: the op line, a newline, then the block):
//   () = "builtin.module" [id:181] () {program:0x55e308966350} : () -> 
// Kept verbatim (the attribute is a pointer); ` [id:N]` under FLAGS_print_ir.
struct module_name : TAO_PEGTL_STRING("\"builtin.module\"") {};
struct module_header_start : seq< one< '(' >, blanks, one< ')' >, blanks, one< '=' >, blanks, module_name > {};
struct module_id : seq< string< '[', 'i', 'd', ':' >, plus< digit >, one< ']' > > {};
struct module_header_rest : seq< opt< blanks, module_id >, blanks, one< '(' >, blanks, one< ')' >, blanks,
                                 brace_group, blanks, one< ':' >, blanks, one< '(' >, blanks, one< ')' >,
                                 blanks, string< '-', '>' >, blanks > {};
struct module_header : if_must< module_header_start, module_header_rest > {};

struct program_open : one< '{' > {};
struct program_close : one< '}' > {};
struct program_block : if_must< program_open, block_body, program_close > {};
struct program_end : eof {};
struct program : seq< ws, opt< module_header >, ws, must< program_block >, ws, must< program_end > > {};
// --fragment: op lines without the braces (one op printed alone, ops pasted
// from a log or a trace), elision lines among them.
struct fragment_start : success {};
struct fragment_end : eof {};
struct fragment : seq< fragment_start, block_body, must< fragment_end > > {};
// A program's top-level ops cut at op lines into chunks, each read on its
// own (src/syntax/parallel_parse.h): the first chunk holds the opening
// brace, the last the closing one. No `must`: a chunk that does not match
// is read again with the whole program, which reports the error.
struct first_chunk : seq< ws, opt< module_header >, ws, program_open, opt< line_gap, block_args >, block_ops,
                          line_gap, eof > {};
struct middle_chunk : seq< block_ops, line_gap, eof > {};
struct last_chunk : seq< block_ops, line_gap, program_close, ws, program_end > {};
// clang-format on

}  // namespace reshardctl::grammar
