// What the command line needs besides its definition (cli.cpp): range checks
// that say what is allowed in words, usage errors that name the unknown
// subcommand or flag and suggest the closest one, and the --version text.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace reshardctl {

// "must be a number greater than 0, not '-1'": values that are not finite
// (1e400) fail too.
CLI::Validator positiveNumber();
CLI::Validator nonNegativeNumber();
// A bounded quantity: "must be a number greater than 0 and at most 1e+06
// (GB/s), not '1e400'" (`minExcluded`: above min; else from min).
CLI::Validator numberIn(double min, double max, bool minExcluded, const char* unit);
// "must be an integer from 1 to 2147483647, not '0'"; `max` defaults to the
// type's largest.
CLI::Validator integerIn(int64_t min, int64_t max);
CLI::Validator unsignedInteger();  // 0 to 2^64-1

// The subcommand named in argv when it is not one of `app`'s: a usage
// message with a suggestion ("unknown subcommand 'aply'; did you mean
// 'apply'?"); empty when argv names a known one or none.
std::string unknownSubcommand(const CLI::App& app, int argc, const char* const* argv);

// The usage message for a parse error: for flags no subcommand knows, each
// one named with the closest flag of its subcommand.
std::string explainParseError(const CLI::App& app, const CLI::ParseError& error);

// "reshardctl 0.1.0 (commit ...)", then the backends this binary holds.
std::string versionText();

}  // namespace reshardctl
