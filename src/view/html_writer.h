// Writing HTML with escaping as the default: text goes in escaped
// (appendHtml), and markup goes in as it stands only when it says so, as a
// literal (`"<tr>"_markup`) or through Markup::trusted for what another
// writer built. A name from the program cannot reach the page raw: forget
// the `_markup` and the tag shows as text, which every page test notices.
#pragma once

#include <iterator>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "support/escape.h"

namespace reshardctl {

// A piece of markup the page trusts: written by this program, never taken
// from the input.
class Markup {
 public:
  // Markup another writer built (the SVG picture, the embedded assets).
  static Markup trusted(std::string_view markup) { return Markup(markup); }
  std::string_view text() const { return text_; }

 private:
  friend consteval Markup operator""_markup(const char* text, size_t size);
  constexpr explicit Markup(std::string_view text) : text_(text) {}
  std::string_view text_;
};

// Only a string literal becomes markup this way (consteval).
consteval Markup operator""_markup(const char* text, size_t size) { return Markup(std::string_view(text, size)); }

class HtmlWriter {
 public:
  HtmlWriter& operator<<(Markup markup) {
    out_ += markup.text();
    return *this;
  }
  HtmlWriter& operator<<(std::string_view text) {
    appendHtml(out_, text);
    return *this;
  }
  // A literal format is markup; its string arguments are text, escaped,
  // and its Markup arguments go in as they are.
  template <typename... Args>
  HtmlWriter& format(fmt::format_string<Args...> markup, Args&&... args) {
    auto escaped = std::make_tuple(escapedArgument(std::forward<Args>(args))...);
    std::apply(
        [&](auto&... values) {
          fmt::vformat_to(std::back_inserter(out_), fmt::string_view(markup), fmt::make_format_args(values...));
        },
        escaped);
    return *this;
  }

  std::string take() { return std::move(out_); }

 private:
  template <typename T>
  static auto escapedArgument(T&& argument) {
    if constexpr (std::is_convertible_v<T, std::string_view>) return html(std::string_view(argument));
    else return std::decay_t<T>(std::forward<T>(argument));
  }

  std::string out_;
};

}  // namespace reshardctl

// A Markup argument of HtmlWriter::format goes in as it stands.
template <>
struct fmt::formatter<reshardctl::Markup> : fmt::formatter<std::string_view> {
  template <typename Context>
  auto format(const reshardctl::Markup& markup, Context& context) const {
    return fmt::formatter<std::string_view>::format(markup.text(), context);
  }
};
