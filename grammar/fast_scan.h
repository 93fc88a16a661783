// Hand-written PEGTL rules that match what the structured rules of
// pir_grammar.h match, in one tight loop: a verbatim attribute value (the
// scan of top_level_scan.h), the angle-bracketed part of a type, names, and
// the whitespace between tokens. Almost
// every byte of a dump lies inside one of the two, so this is where parsing
// time goes.
//
// Both look at 16 bytes at a time where the input allows (SSE2, the x86-64
// baseline): a bit mask tells which bytes could matter, and only those are
// looked at one by one. Elsewhere, and in the last 15 bytes, a plain loop does
// the same work byte by byte.
//
// Each is tried first and succeeds only on well-formed text; on anything else
// (an unbalanced bracket, nesting deeper than kMaxDepth, end of input) it
// fails without consuming, and the structured rules run instead: they report
// the error precisely and enforce the nesting limit through their actions.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <tao/pegtl.hpp>
#include <tao/pegtl/contrib/analyze_traits.hpp>

#include "grammar/top_level_scan.h"

namespace reshardctl::grammar {

namespace fast_scan_detail {

#if defined(__SSE2__)
using top_level_detail::equal;
using top_level_detail::kBlock;
using top_level_detail::kBlocks;

// Bit i is set where byte i of the 16 at `p` is an angle bracket or a line end.
inline uint32_t angleStops(const char* p) {
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  __m128i hit = _mm_or_si128(equal(b, '<'), equal(b, '>'));
  hit = _mm_or_si128(hit, _mm_or_si128(equal(b, '\n'), equal(b, '\r')));
  return static_cast<uint32_t>(_mm_movemask_epi8(hit));
}
#else
using top_level_detail::kBlock;
using top_level_detail::kBlocks;
inline uint32_t angleStops(const char*) { return 0xFFFF; }
#endif

using top_level_detail::kMaxDepth;

// Past the `>` that closes the `<` at `start`, or nullptr: end of input, a
// line end, or nesting deeper than kMaxDepth. Only angle brackets and line
// ends matter, so blocks of 16 bytes without one are passed whole.
inline const char* angleEnd(const char* start, const char* end) {
  size_t depth = 0;
  const char* p = start;
  auto step = [&](const char c) -> int {  // 1: closed, -1: fail, 0: go on
    if (c == '<') return ++depth > kMaxDepth ? -1 : 0;
    if (c == '>') return --depth == 0 ? 1 : 0;
    return c == '\n' || c == '\r' ? -1 : 0;
  };
  while (kBlocks && end - p >= kBlock) {
    for (uint32_t stops = angleStops(p); stops; stops &= stops - 1) {
      const char* at = p + __builtin_ctz(stops);
      if (int outcome = step(*at)) return outcome > 0 ? at + 1 : nullptr;
    }
    p += kBlock;
  }
  for (; p < end; ++p) {
    if (int outcome = step(*p)) return outcome > 0 ? p + 1 : nullptr;
  }
  return nullptr;
}

}  // namespace fast_scan_detail

// An attribute value, as attr_value matches it: words, strings and balanced
// bracket groups side by side; inside brackets also commas and whitespace.
// Ends before the first top-level comma, closing brace or whitespace.
struct fast_attr_value {
  using rule_t = fast_attr_value;
  using subs_t = tao::pegtl::empty_list;

  template <typename ParseInput>
  [[nodiscard]] static bool match(ParseInput& in) {
    const char* const start = in.current();
    const char* const past = topLevelEnd<true>(start, in.end());
    if (!past || past == start) return false;
    in.bump_in_this_line(static_cast<size_t>(past - start));
    return true;
  }
};

// The `<...>` of a type: balanced angle brackets on one line.
struct fast_angle_body {
  using rule_t = fast_angle_body;
  using subs_t = tao::pegtl::empty_list;

  template <typename ParseInput>
  [[nodiscard]] static bool match(ParseInput& in) {
    const char* const start = in.current();
    if (start == in.end() || *start != '<') return false;
    const char* const past = fast_scan_detail::angleEnd(start, in.end());
    if (!past) return false;
    in.bump_in_this_line(static_cast<size_t>(past - start));
    return true;
  }
};

// plus< sor< identifier_char, one< '.' > > > (Dots) or plus< identifier_char >
// (identifier_char: [a-zA-Z0-9_]) by one table lookup a byte: names, keys and
// value names are a good part of every op line.
template <bool Dots>
struct identifier_run {
  using rule_t = identifier_run;
  using subs_t = tao::pegtl::empty_list;

  static constexpr std::array<bool, 256> makeTable() {
    std::array<bool, 256> table{};
    for (int c = 0; c < 256; ++c)
      table[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                 (Dots && c == '.');
    return table;
  }
  static constexpr std::array<bool, 256> kTable = makeTable();

  template <typename ParseInput>
  [[nodiscard]] static bool match(ParseInput& in) {
    const char* const start = in.current();
    const char* p = start;
    while (p < in.end() && kTable[static_cast<unsigned char>(*p)]) ++p;
    if (p == start) return false;
    in.bump_in_this_line(static_cast<size_t>(p - start));
    return true;
  }
};

// star< space > (space: ' ', '\n', '\r', '\t', '\v', '\f') by one loop: the
// whitespace between two tokens, looked for some fifty times an op line,
// mostly to find none. Never fails.
struct space_run {
  using rule_t = space_run;
  using subs_t = tao::pegtl::empty_list;

  static constexpr bool isSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

  template <typename ParseInput>
  [[nodiscard]] static bool match(ParseInput& in) {
    const char* p = in.current();
    while (p < in.end() && isSpace(*p)) ++p;
    if (p != in.current()) in.bump(static_cast<size_t>(p - in.current()));
    return true;
  }
};

}  // namespace reshardctl::grammar

// For pegtl::analyze: these rules consume input when they succeed.
template <typename Name>
struct tao::pegtl::analyze_traits<Name, reshardctl::grammar::fast_attr_value>
    : tao::pegtl::analyze_any_traits<> {};
template <typename Name>
struct tao::pegtl::analyze_traits<Name, reshardctl::grammar::fast_angle_body>
    : tao::pegtl::analyze_any_traits<> {};
// space_run may match nothing.
template <typename Name>
struct tao::pegtl::analyze_traits<Name, reshardctl::grammar::space_run> : tao::pegtl::analyze_opt_traits<> {};
template <typename Name, bool Dots>
struct tao::pegtl::analyze_traits<Name, reshardctl::grammar::identifier_run<Dots>>
    : tao::pegtl::analyze_any_traits<> {};
