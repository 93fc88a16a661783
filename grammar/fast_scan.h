// Two hand-written PEGTL rules that match what the structured rules of
// pir_grammar.h match, in one tight loop: a verbatim attribute value and the
// angle-bracketed part of a type. Almost every byte of a dump lies inside
// one of the two, so this is where parsing time goes.
//
// Each is tried first and succeeds only on well-formed text; on anything else
// (an unbalanced bracket, nesting deeper than kMaxDepth, end of input) it
// fails without consuming, and the structured rules run instead: they report
// the error precisely and enforce the nesting limit through their actions.
#pragma once

#include <array>
#include <cstddef>

#include <tao/pegtl.hpp>
#include <tao/pegtl/contrib/analyze_traits.hpp>

namespace reshardctl::grammar {

namespace fast_scan_detail {

// At least the parser's own nesting limit, so the fast path never accepts what
// the structured rules would reject.
constexpr size_t kMaxDepth = 200;

enum : unsigned char { kPlain, kOpen, kClose, kQuote, kComma, kSpace, kNewline };

constexpr std::array<unsigned char, 256> makeClasses() {
  std::array<unsigned char, 256> classes{};
  for (char c : {'[', '{', '(', '<'}) classes[static_cast<unsigned char>(c)] = kOpen;
  for (char c : {']', '}', ')', '>'}) classes[static_cast<unsigned char>(c)] = kClose;
  classes['"'] = kQuote;
  classes[','] = kComma;
  classes[' '] = kSpace;  // what ends a top-level word (pir_grammar.h `word`)
  classes['\t'] = kSpace;
  classes['\n'] = kNewline;
  classes['\r'] = kNewline;
  return classes;
}
inline constexpr std::array<unsigned char, 256> kClasses = makeClasses();

constexpr char closerOf(char open) {
  return open == '[' ? ']' : open == '{' ? '}' : open == '(' ? ')' : '>';
}

// Past the string starting at `p` (on its opening quote), or nullptr if it
// does not end before `end`.
inline const char* skipString(const char* p, const char* end) {
  for (++p; p < end; ++p) {
    if (*p == '\\') {
      ++p;
      continue;
    }
    if (*p == '"') return p + 1;
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
    using namespace fast_scan_detail;
    const char* const start = in.current();
    const char* const end = in.end();
    char expected[kMaxDepth];
    size_t depth = 0;
    const char* p = start;
    while (p < end) {
      const unsigned char kind = kClasses[static_cast<unsigned char>(*p)];
      if (kind == kPlain) {
        ++p;
      } else if (kind == kQuote) {
        if (!(p = skipString(p, end))) return false;
      } else if (kind == kOpen) {
        if (depth == kMaxDepth) return false;
        expected[depth++] = closerOf(*p++);
      } else if (kind == kClose) {
        if (depth == 0) break;  // the dict's '}' (or a stray closer: the slow path decides)
        if (*p != expected[--depth]) return false;
        ++p;
      } else if (depth == 0) {
        break;  // a top-level comma or whitespace ends the value
      } else {
        ++p;  // commas and whitespace inside brackets
      }
    }
    if (depth != 0 || p == start) return false;
    in.bump_in_this_line(static_cast<size_t>(p - start));
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
    const char* const end = in.end();
    if (start == end || *start != '<') return false;
    size_t depth = 0;
    for (const char* p = start; p < end; ++p) {
      const char c = *p;
      if (c == '<') {
        if (++depth > fast_scan_detail::kMaxDepth) return false;
      } else if (c == '>') {
        if (--depth == 0) {
          in.bump_in_this_line(static_cast<size_t>(p + 1 - start));
          return true;
        }
      } else if (c == '\n' || c == '\r') {
        return false;
      }
    }
    return false;
  }
};

}  // namespace reshardctl::grammar

// For pegtl::analyze: both rules consume input when they succeed.
template <typename Name>
struct tao::pegtl::analyze_traits<Name, reshardctl::grammar::fast_attr_value>
    : tao::pegtl::analyze_any_traits<> {};
template <typename Name>
struct tao::pegtl::analyze_traits<Name, reshardctl::grammar::fast_angle_body>
    : tao::pegtl::analyze_any_traits<> {};
