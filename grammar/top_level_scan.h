// The one scan for "where does this attribute value end": brackets of four
// kinds nest, `"..."` may hold anything (and `\"`), and the value ends before
// the first comma or closer outside them. The grammar's fast value rule
// (fast_scan.h) runs it on every value of a dump; the syntax stage runs it to
// split a dictionary's text into entries and to check that a remembered value
// ends where the input's does (syntax/attribute_dictionary.h). It lives here because the grammar may include
// nothing of the stages.
//
// It looks at 16 bytes at a time where the input allows (SSE2, the x86-64
// baseline): a bit mask tells which bytes could matter, and only those are
// looked at one by one. Elsewhere, and in the last 15 bytes, a plain loop does
// the same work byte by byte.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace reshardctl::grammar {

namespace top_level_detail {

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

#if defined(__SSE2__)
constexpr bool kBlocks = true;
constexpr ptrdiff_t kBlock = 16;

inline __m128i splat(char c) { return _mm_set1_epi8(c); }
inline __m128i equal(__m128i bytes, char c) { return _mm_cmpeq_epi8(bytes, splat(c)); }

// Bit i is set where byte i of the 16 at `p` is one the scan must look at: a
// bracket, quote, comma or whitespace. It may also be set for other bytes
// below 0x21 (kClasses calls them plain), never unset for one of those.
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
#else
constexpr bool kBlocks = false;  // the byte loop alone
constexpr ptrdiff_t kBlock = 16;
inline uint32_t attrStops(const char*) { return 0xFFFF; }
#endif

// The state of one scan: the closers still expected. With SpaceEnds,
// whitespace outside brackets ends the value too (a value as the grammar
// reads it); without, it is part of the item (a dictionary's text split).
template <bool SpaceEnds>
struct AttrScan {
  enum class Step { Next, Done, Fail };
  char expected[kMaxDepth];
  size_t depth = 0;

  // Looks at the byte at `p` (kClasses: what it is) and moves `p` past it,
  // or says the value ends before it (Done) or is not well-formed (Fail).
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
      if (depth == 0) return Step::Done;  // the dict's '}' (or a stray closer: the caller decides)
      if (*p != expected[--depth]) return Step::Fail;
      ++p;
    } else if (depth == 0 && (kind == kComma || SpaceEnds)) {
      return Step::Done;  // a top-level comma (or whitespace) ends the value
    } else {
      ++p;  // commas and whitespace inside brackets
    }
    return Step::Next;
  }
};

// Runs `scan.step` on the bytes attrStops marks, 16 at a time while 16 are
// left (the bytes it leaves out are plain: step would only pass them). Moves
// `p` to where it stopped; returns the last step's outcome.
template <bool SpaceEnds>
inline typename AttrScan<SpaceEnds>::Step attrBlocks(AttrScan<SpaceEnds>& scan, const char*& p,
                                                     const char* end) {
  using Step = typename AttrScan<SpaceEnds>::Step;
  while (kBlocks && end - p >= kBlock) {
    const char* const block = p;
    const char* resume = block + kBlock;
    for (uint32_t stops = attrStops(block); stops; stops &= stops - 1) {
      const char* at = block + __builtin_ctz(stops);
      const char* const before = at;
      const Step outcome = scan.step(at, end);
      if (outcome != Step::Next) {
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
  return Step::Next;
}

}  // namespace top_level_detail

// Where the value that starts at `p` ends: at the first comma or closer outside
// brackets and strings (SpaceEnds: or whitespace), or at `end`. nullptr when it
// is not well-formed before that: a bracket closed by the wrong kind, a string
// or bracket still open at `end`, nesting deeper than kMaxDepth.
template <bool SpaceEnds>
inline const char* topLevelEnd(const char* p, const char* end) {
  using namespace top_level_detail;
  using Step = typename AttrScan<SpaceEnds>::Step;
  AttrScan<SpaceEnds> scan;
  Step outcome = attrBlocks(scan, p, end);
  while (outcome == Step::Next && p < end) outcome = scan.step(p, end);
  return outcome == Step::Fail || scan.depth != 0 ? nullptr : p;
}

// Whether `c` ends a value that has all its brackets closed, as the grammar
// reads it: a closer, a comma or whitespace (topLevelEnd<true> stops there).
inline bool endsTopLevelValue(char c) {
  using namespace top_level_detail;
  const unsigned char kind = kClasses[static_cast<unsigned char>(c)];
  return kind == kClose || kind == kComma || kind == kSpace || kind == kNewline;
}

}  // namespace reshardctl::grammar
