#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tool/cli_support.h"

namespace reshardctl {

namespace {

enum class Shade { Light, Dark };

const Choices<Shade> kShades = {{"light", Shade::Light}, {"dark", Shade::Dark}};

// Parses `arguments` (after the program name) into a fresh app with --shade.
std::string parseShade(const std::vector<std::string>& arguments, Shade* shade) {
  CLI::App app;
  addChoiceOption(app, "--shade", *shade, kShades, "How dark");
  std::vector<std::string> reversed(arguments.rbegin(), arguments.rend());  // CLI11 takes argv reversed
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a closed set of flag values is parsed into its enum, with IsMember's help and errors") {
  Shade shade = Shade::Light;
  CHECK(parseShade({"--shade=dark"}, &shade).empty());
  CHECK(shade == Shade::Dark);
  CHECK(parseShade({}, &shade).empty());
  CHECK(shade == Shade::Dark);  // untouched when not given
  CHECK(parseShade({"--shade", "grey"}, &shade) == "--shade: grey not in {light,dark}");
  CHECK(parseShade({"--shade=light", "--shade=dark"}, &shade) == "--shade: At Most 1 required but received 2");

  CLI::App app;
  Shade value = Shade::Dark;
  const CLI::Option* option = addChoiceOption(app, "--shade", value, kShades, "How dark");
  CHECK(option->get_default_str() == "dark");
  CHECK(option->get_type_name().find("{light,dark}") != std::string::npos);  // what cli_docs reads
  CHECK(std::string(choiceName(kShades, Shade::Light)) == "light");
}

TEST_CASE("--help wraps long lines under their description") {
  const std::string flag = "  --program TEXT    Which program of a file holding several programs to read";
  CHECK(wrapHelpText(flag, 40) ==
        "  --program TEXT    Which program of a\n"
        "                    file holding several\n"
        "                    programs to read");
  CHECK(wrapHelpText(flag, 0) == flag);                 // not a terminal: as it is
  CHECK(wrapHelpText("short\n\nlines\n", 10) == "short\n\nlines\n");
  CHECK(wrapHelpText("Exit status: 0 ok, 1 bad", 12) == "Exit status:\n0 ok, 1 bad");
  CHECK(wrapHelpText("  averyveryverylongword x", 8) == "  averyveryverylongword\n  x");  // a word is never cut
  for (const std::string& line : {flag, std::string(200, 'x') + " y"})
    for (size_t width = 20; width < 90; ++width) CHECK(!wrapHelpText(line, width).empty());
}

}  // namespace reshardctl
