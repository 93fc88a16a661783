// Two hand-written PEGTL rules that match what the structured rules of
// pir_grammar.h match, in one tight loop: a verbatim attribute value and the
// angle-bracketed part of a type. Almost every byte of a dump lies inside
// one of the two, so this is where parsing time goes.
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

// Whether `c` ends an attribute value that has all its brackets closed: a
// closer, a comma or whitespace (what AttrScan::step answers Done to).
inline bool endsTopLevelValue(char c) {
  const unsigned char kind = kClasses[static_cast<unsigned char>(c)];
  return kind == kClose || kind == kComma || kind == kSpace || kind == kNewline;
}

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

#if defined(__SSE2__)
constexpr bool kBlocks = true;
constexpr ptrdiff_t kBlock = 16;

inline __m128i splat(char c) { return _mm_set1_epi8(c); }
inline __m128i equal(__m128i bytes, char c) { return _mm_cmpeq_epi8(bytes, splat(c)); }

// Bit i is set where byte i of the 16 at `p` is one the attribute scan must
// look at: a bracket, quote, comma or whitespace. It may also be set for
// other bytes below 0x21 (kClasses calls them plain), never unset for one of those.
inline uint32_t attrStops(const char* p) {
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  __m128i hit = _mm_cmpeq_epi8(_mm_min_epu8(b, splat(0x20)), b);         // <= ' '
  hit = _mm_or_si128(hit, equal(_mm_and_si128(b, splat(char(0xFE))), '('));  // ( )
  hit = _mm_or_si128(hit, equal(_mm_and_si128(b, splat(char(0xFD))), '<'));  // < >
  const __m128i lower = _mm_or_si128(b, splat(0x20));                      // [ → {, ] → }
  hit = _mm_or_si128(hit, _mm_or_si128(equal(lower, '{'), equal(lower, '}')));
  hit = _mm_or_si128(hit, _mm_or_si128(equal(b, ','), equal(b, '"')));
  return static_cast<uint32_t>(_mm_movemask_epi8(hit));
}

// Bit i is set where byte i of the 16 at `p` is an angle bracket or a line end.
inline uint32_t angleStops(const char* p) {
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  __m128i hit = _mm_or_si128(equal(b, '<'), equal(b, '>'));
  hit = _mm_or_si128(hit, _mm_or_si128(equal(b, '\n'), equal(b, '\r')));
  return static_cast<uint32_t>(_mm_movemask_epi8(hit));
}
#else
constexpr bool kBlocks = false;  // the byte loop alone
constexpr ptrdiff_t kBlock = 16;
inline uint32_t attrStops(const char*) { return 0xFFFF; }
inline uint32_t angleStops(const char*) { return 0xFFFF; }
#endif

// The state of one attribute-value scan: the closers still expected.
struct AttrScan {
  enum class Step { Next, Done, Fail };
  char expected[kMaxDepth];
  size_t depth = 0;

  // Looks at the byte at `p` (kClasses: what it is) and moves `p` past it,
  // or says the value ends before it (Done) or is not for the fast path (Fail).
  Step step(const char*& p, const char* end) {
    const unsigned char kind = kClasses[static_cast<unsigned char>(*p)];
    if (kind == kPlain) {
      ++p;
    } else if (kind == kQuote) {
      if (!(p = skipString(p, end))) return Step::Fail;
    } else if (kind == kOpen) {
      if (depth == kMaxDepth) return Step::Fail;
      expected[depth++] = closerOf(*p++);
    } else if (kind == kClose) {
      if (depth == 0) return Step::Done;  // the dict's '}' (or a stray closer: the slow path decides)
      if (*p != expected[--depth]) return Step::Fail;
      ++p;
    } else if (depth == 0) {
      return Step::Done;  // a top-level comma or whitespace ends the value
    } else {
      ++p;  // commas and whitespace inside brackets
    }
    return Step::Next;
  }
};

// Runs `scan.step` on the bytes attrStops marks, 16 at a time while 16 are
// left (the bytes it leaves out are plain: step would only pass them). Moves
// `p` to where it stopped; returns the last step's outcome.
inline AttrScan::Step attrBlocks(AttrScan& scan, const char*& p, const char* end) {
  while (kBlocks && end - p >= kBlock) {
    const char* const block = p;
    const char* resume = block + kBlock;
    for (uint32_t stops = attrStops(block); stops; stops &= stops - 1) {
      const char* at = block + __builtin_ctz(stops);
      const char* const before = at;
      const AttrScan::Step outcome = scan.step(at, end);
      if (outcome != AttrScan::Step::Next) {
        p = at;
        return outcome;
      }
      if (at != before + 1) {  // a string was skipped: the bits after it are stale
        resume = at;
        break;
      }
    }
    p = resume;
  }
  return AttrScan::Step::Next;
}

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
    using namespace fast_scan_detail;
    const char* const start = in.current();
    const char* const end = in.end();
    AttrScan scan;
    const char* p = start;
    AttrScan::Step outcome = attrBlocks(scan, p, end);
    while (outcome == AttrScan::Step::Next && p < end) outcome = scan.step(p, end);
    if (outcome == AttrScan::Step::Fail || scan.depth != 0 || p == start) return false;
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

}  // namespace reshardctl::grammar

// For pegtl::analyze: these rules consume input when they succeed.
template <typename Name>
struct tao::pegtl::analyze_traits<Name, reshardctl::grammar::fast_attr_value>
    : tao::pegtl::analyze_any_traits<> {};
template <typename Name>
struct tao::pegtl::analyze_traits<Name, reshardctl::grammar::fast_angle_body>
    : tao::pegtl::analyze_any_traits<> {};
template <typename Name, bool Dots>
struct tao::pegtl::analyze_traits<Name, reshardctl::grammar::identifier_run<Dots>>
    : tao::pegtl::analyze_any_traits<> {};
