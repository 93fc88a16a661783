// The table of syntax-error messages: one per rule that a `must` or `if_must`
// in grammar/ can raise, and the PEGTL control that turns a raise into a
// parse_error carrying that message plus what was found instead. A rule
// raised without a message here fails to compile.
#pragma once

#include <string>

#include <tao/pegtl.hpp>

#include "grammar/dist_grammar.h"
#include "grammar/pir_grammar.h"

namespace reshardctl {

template <typename Rule>
inline constexpr const char* error_message = nullptr;

// clang-format off
namespace g = grammar;
// Rules that never fail still need an entry to instantiate `must`.
template<> inline constexpr auto error_message< g::ws > = "expected whitespace";
template<> inline constexpr auto error_message< g::blanks > = "expected blanks";
template<> inline constexpr auto error_message< g::result_defs > = "expected result values";
template<> inline constexpr auto error_message< g::angle_contents > = "expected type parameters";
template<> inline constexpr auto error_message< g::string_chars > = "expected string characters";
template<> inline constexpr auto error_message< g::group_contents > = "expected attribute value contents";
template<> inline constexpr auto error_message< g::attr_entries > = "expected attributes";
template<> inline constexpr auto error_message< g::optional_kwargs_marker > = "expected 'kw:'";
template<> inline constexpr auto error_message< g::block_body > = "expected block contents";
template<> inline constexpr auto error_message< g::operand_items > = "expected operands";
template<> inline constexpr auto error_message< g::vec_elements > = "expected vector element types";
template<> inline constexpr auto error_message< g::operand_types > = "expected operand types";
template<> inline constexpr auto error_message< g::result_types > = "expected result types";
template<> inline constexpr auto error_message< g::generic_regions > = "expected regions";
template<> inline constexpr auto error_message< g::optional_else > = "expected 'else'";
template<> inline constexpr auto error_message< g::optional_op_id > = "expected an op id";
template<> inline constexpr auto error_message< g::op_id_number > = "expected the op id's number in [id:N]";
template<> inline constexpr auto error_message< g::op_id_close > = "expected ']' closing [id:N]";
template<> inline constexpr auto error_message< g::brace_gap > = "expected whitespace";

template<> inline constexpr auto error_message< g::program_block > = "expected '{' starting the program";
template<> inline constexpr auto error_message< g::fragment_end > = "expected an op line '(...) = \"dialect.op\" ...' in the fragment";
template<> inline constexpr auto error_message< g::program_end > = "expected end of input after the program's closing '}'";
template<> inline constexpr auto error_message< g::program_close > = "expected an op line '(...) = \"dialect.op\" ...' or '}' closing the block";
template<> inline constexpr auto error_message< g::block_close > = "expected an op line '(...) = \"dialect.op\" ...' or '}' closing the block";
template<> inline constexpr auto error_message< g::block_arg_list > = "expected block arguments such as '%arg_0'";
template<> inline constexpr auto error_message< g::optional_block_arg_list > = "expected block arguments such as '%arg_0'";
template<> inline constexpr auto error_message< g::results_close > = "expected ')' closing the result list";
template<> inline constexpr auto error_message< g::op_equals > = "expected '=' after the result list";
template<> inline constexpr auto error_message< g::op_name > = "expected a quoted op name such as \"pd_op.relu\"";
template<> inline constexpr auto error_message< g::op_tail > = "expected '(' starting the operand list";
template<> inline constexpr auto error_message< g::operands_close > = "expected ',' or ')' in the operand list";
template<> inline constexpr auto error_message< g::while_operands > = "expected pd_op.while operands '(cond=%c, inputs=%a, ...)'";
template<> inline constexpr auto error_message< g::attr_dict > = "expected '{' starting the attribute dictionary";
template<> inline constexpr auto error_message< g::op_rest > = "expected '{' starting the attribute dictionary (or '->' of a region op printed without one)";
template<> inline constexpr auto error_message< g::module_header_rest > = "expected the rest of the module op's line '() = \"builtin.module\" () {...} : () -> '";
template<> inline constexpr auto error_message< g::attr_dict_close > = "expected ',' or '}' in the attribute dictionary";
template<> inline constexpr auto error_message< g::attr_colon > = "expected ':' after the attribute name";
template<> inline constexpr auto error_message< g::attr_value > = "expected an attribute value";
template<> inline constexpr auto error_message< g::string_close > = "unterminated string: expected '\"'";
template<> inline constexpr auto error_message< g::bracket_close > = "unbalanced brackets: expected ']'";
template<> inline constexpr auto error_message< g::brace_close > = "unbalanced brackets: expected '}'";
template<> inline constexpr auto error_message< g::paren_close > = "unbalanced brackets: expected ')'";
template<> inline constexpr auto error_message< g::angle_close > = "unbalanced brackets: expected '>'";
template<> inline constexpr auto error_message< g::vec_close > = "expected ',' or ']' in the vec[...] type";
template<> inline constexpr auto error_message< g::op_signature > = "expected ':' and the op's type signature '(operand types) -> result types'";
template<> inline constexpr auto error_message< g::operand_types_open > = "expected '(' starting the operand types";
template<> inline constexpr auto error_message< g::operand_types_close > = "expected ',' or ')' in the operand types";
template<> inline constexpr auto error_message< g::signature_arrow > = "expected '->' before the result types";
template<> inline constexpr auto error_message< g::region_block > = "expected '{' starting a block";
template<> inline constexpr auto error_message< g::else_region > = "expected '{' after 'else'";

namespace d = grammar::dist;
template<> inline constexpr auto error_message< d::int_items > = "expected integers";
template<> inline constexpr auto error_message< d::int_list_close > = "expected ',' or ']' in the integer list";
template<> inline constexpr auto error_message< d::mesh_shape_value > = "expected '[' starting the mesh shape";
template<> inline constexpr auto error_message< d::process_ids_value > = "expected '[' starting the process ids";
template<> inline constexpr auto error_message< d::dims_mapping_value > = "expected '[' starting the dims mapping";
template<> inline constexpr auto error_message< d::partial_dim > = "expected the mesh dim of partial(dim,REDUCE)";
template<> inline constexpr auto error_message< d::partial_comma > = "expected ',' in partial(dim,REDUCE)";
template<> inline constexpr auto error_message< d::reduce_name > = "expected a reduce type in partial(dim,REDUCE)";
template<> inline constexpr auto error_message< d::partial_close > = "expected ')' closing partial(dim,REDUCE)";
template<> inline constexpr auto error_message< d::placements_value > = "expected '[' starting the placements";
template<> inline constexpr auto error_message< d::placements_items > = "expected placements";
template<> inline constexpr auto error_message< d::placements_close > = "expected ']' closing the placements";
template<> inline constexpr auto error_message< d::tensor_type_end > = "unexpected text in the tensor type";
template<> inline constexpr auto error_message< d::op_dist_open > = "expected '{' starting op_dist_attr";
template<> inline constexpr auto error_message< d::op_mesh > = "expected 'mesh:{shape:[...],process_ids:[...]}' first in op_dist_attr";
template<> inline constexpr auto error_message< d::op_mesh_shape_value > = "expected '[' starting the mesh shape";
template<> inline constexpr auto error_message< d::op_mesh_ids_key > = "expected ',process_ids:' in the op mesh";
template<> inline constexpr auto error_message< d::op_mesh_ids_value > = "expected '[' starting the process ids";
template<> inline constexpr auto error_message< d::optional_dim_names > = "expected dim names";
template<> inline constexpr auto error_message< d::op_mesh_close > = "expected '}' closing the op mesh";
template<> inline constexpr auto error_message< d::op_dist_item > = "expected 'operand(N):', 'result(N):' or 'chunk_id:' in op_dist_attr";
template<> inline constexpr auto error_message< d::op_dist_close > = "expected ',' or '}' in op_dist_attr";
template<> inline constexpr auto error_message< d::op_dist_end > = "unexpected text after op_dist_attr";
template<> inline constexpr auto error_message< d::entry_index > = "expected the entry index";
template<> inline constexpr auto error_message< d::entry_key_close > = "expected '):' after the entry index";
template<> inline constexpr auto error_message< d::entry > = "expected '{' starting the entry";
template<> inline constexpr auto error_message< d::entry_body > = "expected entry fields";
template<> inline constexpr auto error_message< d::entry_close > = "expected a field (mesh_shape, process_ids, dims_mapping, partial, placements) or '}' in the entry";
template<> inline constexpr auto error_message< d::list_elements > = "expected tensor list entries";
template<> inline constexpr auto error_message< d::list_close > = "expected ',' or ']' in the tensor list entry";
template<> inline constexpr auto error_message< d::tensor_fields > = "expected a field (mesh_shape, process_ids, dims_mapping, partial, placements)";
template<> inline constexpr auto error_message< d::list_element_close > = "expected '}' closing the list element";
template<> inline constexpr auto error_message< d::chunk_id_value > = "expected an integer chunk id";
// clang-format on

// What the input holds at a failure point, for "..., found X" in messages.
std::string describeFound(const char* current, const char* end);
// `message` and what was found; a list's "expected ',' or ..." failing at a
// ',' is a dangling comma, said as "expected an item after ',' in ..., found X".
std::string errorText(std::string_view message, const char* current, const char* end);

// PEGTL control: raising a rule throws parse_error with the table's message.
template <typename Rule>
struct error_control : tao::pegtl::normal<Rule> {
  template <typename Input, typename... States>
  [[noreturn]] static void raise(const Input& in, States&&... /*unused*/) {
    static_assert(error_message<Rule> != nullptr, "add a message for this rule to parse_errors.h");
    throw tao::pegtl::parse_error(errorText(error_message<Rule>, in.current(), in.end()), in);
  }
};

}  // namespace reshardctl
