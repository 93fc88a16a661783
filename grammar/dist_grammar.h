// The PEGTL grammar of the distribution text inside a program: the body of a
// tensor type (`4x8xf32, mesh_shape:[2],dims_mappings:[-1,-1], partial(0,SUM)`)
// and the value of an `op_dist_attr` attribute
// (`{mesh:{shape:[2],process_ids:[0,1]},operand(0):{dims_maping:[-1,-1]},...}`).
// The program grammar (pir_grammar.h) keeps these as verbatim text; this one
// interprets them. Rules only: actions are in src/syntax/dist_attr_text.cpp.
#pragma once

#include <tao/pegtl.hpp>

namespace reshardctl::grammar::dist {

// clang-format off
using namespace tao::pegtl;

struct integer : seq< opt< one< '-' > >, plus< digit > > {};
struct int_items : opt< list< integer, one< ',' > > > {};
struct int_list_close : one< ']' > {};
struct int_list : if_must< one< '[' >, int_items, int_list_close > {};
struct field_sep : seq< one< ',' >, star< blank > > {};

// ---- one tensor's distribution: the fields of a type or an entry ---------
struct mesh_shape_value : int_list {};
struct process_ids_value : int_list {};
struct dims_mapping_value : int_list {};
struct mesh_shape_key : string< 'm','e','s','h','_','s','h','a','p','e',':' > {};
struct process_ids_key : string< 'p','r','o','c','e','s','s','_','i','d','s',':' > {};
// `dims_mappings` in types; `dims_maping` (sic) in generation-A entries;
// `dims_mapping` in one fork's operand entries.
struct dims_mapping_key : sor< string< 'd','i','m','s','_','m','a','p','p','i','n','g','s',':' >,
                               string< 'd','i','m','s','_','m','a','p','p','i','n','g',':' >,
                               string< 'd','i','m','s','_','m','a','p','i','n','g',':' > > {};
struct mesh_shape_field : if_must< mesh_shape_key, mesh_shape_value > {};
struct process_ids_field : if_must< process_ids_key, process_ids_value > {};
struct dims_mapping_field : if_must< dims_mapping_key, dims_mapping_value > {};

struct partial_key : string< 'p','a','r','t','i','a','l','(' > {};
struct partial_dim : integer {};
struct partial_comma : one< ',' > {};
struct reduce_name : plus< ranges< 'A', 'Z', 'a', 'z', '0', '9', '_' > > {};
struct partial_close : one< ')' > {};
struct partial_field : if_must< partial_key, partial_dim, partial_comma, reduce_name,
                                partial_close > {};

// Generation D: `placements:[Shard(dim=0), Replicate()]`, kept as text.
struct placements_key : string< 'p','l','a','c','e','m','e','n','t','s',':' > {};
struct placements_item : sor< seq< one< '(' >, star< not_one< '(', ')', ']', '\n' > >, one< ')' > >,
                              not_one< '[', ']', '(', ')', '\n' > > {};
struct placements_close : one< ']' > {};
struct placements_items : star< placements_item > {};
struct placements_value : if_must< one< '[' >, placements_items, placements_close > {};
struct placements_field : if_must< placements_key, placements_value > {};

struct tensor_field : sor< mesh_shape_field, process_ids_field, dims_mapping_field,
                           partial_field, placements_field > {};
struct tensor_fields : list< tensor_field, field_sep > {};

// ---- the body of a tensor type: dims x dtype [, distribution] -------------
struct dim : integer {};
// A tensor whose element type is null prints it as BasicIrPrinter::PrintType
// does (paddle/pir/src/core/ir_printer.cc): `tensor<0x<<NULL TYPE>>>`.
struct null_dtype : TAO_PEGTL_STRING("<<NULL TYPE>>") {};
struct named_dtype : seq< ranges< 'a', 'z', 'A', 'Z' >, star< ranges< 'a', 'z', 'A', 'Z', '0', '9', '_' > > > {};
struct dtype : sor< null_dtype, named_dtype > {};
struct tensor_shape : seq< star< dim, one< 'x' > >, dtype > {};
struct type_dist : seq< field_sep, tensor_fields > {};
struct tensor_type_end : eof {};
struct tensor_type_body : seq< tensor_shape, opt< type_dist >, must< tensor_type_end > > {};

// ---- op_dist_attr ---------------------------------------------------------
struct op_mesh_shape_value : int_list {};
struct op_mesh_ids_value : int_list {};
struct dim_names_key : string< ',','d','i','m','_','n','a','m','e','s',':' > {};
struct dim_names_value : seq< one< '[' >, star< not_one< ']' > >, one< ']' > > {};
struct op_mesh_key : string< 'm','e','s','h',':','{','s','h','a','p','e',':' > {};
struct op_mesh_ids_key : string< ',','p','r','o','c','e','s','s','_','i','d','s',':' > {};
struct op_mesh_close : one< '}' > {};
struct optional_dim_names : opt< dim_names_key, dim_names_value > {};
struct op_mesh : if_must< op_mesh_key, op_mesh_shape_value, op_mesh_ids_key, op_mesh_ids_value,
                          optional_dim_names, op_mesh_close > {};

struct entry_index : plus< digit > {};
struct operand_key : string< 'o','p','e','r','a','n','d','(' > {};
struct result_key : string< 'r','e','s','u','l','t','(' > {};
struct entry_key_close : seq< one< ')' >, one< ':' > > {};
struct entry_key : seq< sor< operand_key, result_key >, must< entry_index >, must< entry_key_close > > {};

struct entry_open : one< '{' > {};
struct entry_close : one< '}' > {};
// `{null}` (generation A); `{<#AttrNull>}` (the generic printer's null, C on).
struct null_entry : sor< string< 'n','u','l','l' >,
                         string< '<','#','A','t','t','r','N','u','l','l','>' > > {};
struct list_element_open : one< '{' > {};
struct list_element_close : one< '}' > {};
struct list_element : if_must< list_element_open, tensor_fields, list_element_close > {};
// Generations C-E print a tensor list through the generic array printer:
// `[mesh_shape:..,process_ids:..,dims_mappings:..,mesh_shape:..,...]` with no
// braces, so each element starts at its `mesh_shape:`.
struct bare_element_begin : success {};
struct bare_element_field : seq< field_sep, not_at< mesh_shape_key >, tensor_field > {};
struct bare_list_element : seq< bare_element_begin, mesh_shape_field, star< bare_element_field > > {};
struct list_close : one< ']' > {};
struct list_elements : opt< sor< list< list_element, field_sep >,
                                 list< bare_list_element, one< ',' > > > > {};
struct list_entry : if_must< one< '[' >, list_elements, list_close > {};
struct tensor_entry : tensor_fields {};
struct entry_body : opt< sor< null_entry, list_entry, tensor_entry > > {};
struct entry : if_must< entry_open, entry_body, entry_close > {};
struct entry_item : if_must< entry_key, entry > {};

struct chunk_id_key : string< 'c','h','u','n','k','_','i','d',':' > {};
struct chunk_id_value : seq< opt< one< '(' >, plus< ranges< 'a', 'z', 'A', 'Z', '0', '9' > >, one< ')' > >,
                             integer > {};
struct chunk_id_field : if_must< chunk_id_key, chunk_id_value > {};

struct op_dist_item : sor< entry_item, chunk_id_field > {};
struct op_dist_next : if_must< one< ',' >, op_dist_item > {};
struct op_dist_items : star< op_dist_next > {};
struct op_dist_open : one< '{' > {};
struct op_dist_close : one< '}' > {};
struct op_dist_end : eof {};
struct op_dist_attr : seq< must< op_dist_open >, must< op_mesh >, op_dist_items,
                           must< op_dist_close >, must< op_dist_end > > {};
// clang-format on

}  // namespace reshardctl::grammar::dist
