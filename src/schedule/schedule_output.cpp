#include "schedule/schedule_output.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/diagnostic_formats.h"
#include "report/result_json.h"
#include "support/escape.h"
#include "support/text.h"

namespace reshardctl {

std::string placeText(const RankSchedule& rank, const CommCall& call) {
  const SourceFile::LineCol where = rank.source->lineCol(call.location);
  return fmt::format("{}:{}:{}", rank.source->name(), where.line, where.column);
}

std::string callText(const CommCall& call) {
  std::string text = callSignature(call);
  const std::string peer = call.peer < 0 ? fmt::format("peer index {}", call.peerIndex) : fmt::format("rank {}", call.peer);
  if (call.kind == CommKind::Send) text += " to " + peer;
  if (call.kind == CommKind::Recv) text += " from " + peer;
  return text;
}

namespace {

using Json = nlohmann::ordered_json;

Diagnostic noteFor(const Schedule& schedule, size_t errorRank, const FindingOp& op) {
  const RankSchedule& rank = schedule.ranks[op.rank];
  if (op.call == kNoCall)
    return Diagnostic{Severity::Note, Diagnostic::kNoLocation, 0, fmt::format("rank {} ({}): {}", rank.rank, rank.name, op.text)};
  const CommCall& call = rank.calls[op.call];
  if (rank.source == schedule.ranks[errorRank].source)
    return Diagnostic{Severity::Note, call.location, 1, op.text};
  return Diagnostic{Severity::Note, Diagnostic::kNoLocation, 0, fmt::format("{}: {}", placeText(rank, call), op.text)};
}

std::string wavefrontListing(const Schedule& schedule, const ScheduleCheck& check) {
  std::string text = "wavefront (how far each rank gets before the run stops):\n";
  for (size_t r = 0; r < schedule.ranks.size(); ++r) {
    const RankSchedule& rank = schedule.ranks[r];
    const WavefrontEntry& entry = check.wavefront[r];
    text += fmt::format("  rank {}: {} of {} done", rank.rank, entry.completed, plural(entry.checked, "call"));
    if (entry.blockedAt != kNoCall)
      text += fmt::format(", waits in #{} {} ({})", entry.blockedAt + 1, terminalLine(callText(rank.calls[entry.blockedAt])),
                          terminalLine(placeText(rank, rank.calls[entry.blockedAt])));
    text += "\n";
  }
  return text;
}

Json callJson(const Schedule& schedule, const RankSchedule& rank, size_t index) {
  const CommCall& call = rank.calls[index];
  const Communicator& comm = schedule.communicators.at(call.ring);
  const bool checked = !call.inControlFlow && comm.absent.empty();
  return {{"call", index + 1},
          {"op", call.op},
          {"kind", commKindName(call.kind)},
          {"ring", call.ring},
          {"peer", call.peer < 0 ? Json() : Json(call.peer)},
          {"count", call.count < 0 ? Json() : Json(call.count)},
          {"dtype", call.dtype.empty() ? Json() : Json(call.dtype)},
          {"reduce", call.reduce ? Json(reduceTypeName(*call.reduce)) : Json()},
          {"root", call.root < 0 ? Json() : Json(call.root)},
          {"location", placeJson(*rank.source, call.location)},
          {"in_control_flow", call.inControlFlow},
          {"checked", checked}};
}

Json findingJson(const Schedule& schedule, const Finding& finding) {
  Json ops = Json::array();
  for (const FindingOp& op : finding.ops) {
    const RankSchedule& rank = schedule.ranks[op.rank];
    ops.push_back({{"rank", rank.rank},
                   {"call", op.call == kNoCall ? Json() : Json(op.call + 1)},
                   {"location", op.call == kNoCall ? Json() : placeJson(*rank.source, rank.calls[op.call].location)},
                   {"text", op.text}});
  }
  return {{"kind", findingKindName(finding.kind)}, {"ring", finding.ring}, {"message", finding.message}, {"ops", ops}};
}

}  // namespace

std::vector<RankDiagnostic> findingDiagnostics(const Schedule& schedule, const ScheduleCheck& check) {
  std::vector<RankDiagnostic> diagnostics;
  for (const Finding& finding : check.findings) {
    const FindingOp& at = finding.ops.front();
    const CommCall& call = schedule.ranks[at.rank].calls[at.call];
    Diagnostic error{Severity::Error, call.location, 1, finding.message};
    error.code = kScheduleFindingCode;
    for (size_t k = 1; k < finding.ops.size(); ++k) error.notes.push_back(noteFor(schedule, at.rank, finding.ops[k]));
    diagnostics.push_back({at.rank, std::move(error)});
  }
  return diagnostics;
}

std::vector<std::string> uncheckedCommunicators(const Schedule& schedule) {
  std::vector<std::string> warnings;
  for (const auto& [ring, comm] : schedule.communicators)
    if (!comm.absent.empty())
      warnings.push_back(fmt::format("{}: {} {} no program given: its calls are listed, not checked",
                                     communicatorName(comm), comm.absent.size() == 1 ? "rank" : "ranks",
                                     fmt::format("{} {}", fmt::join(comm.absent, ","), comm.absent.size() == 1 ? "has" : "have")));
  return warnings;
}

std::string scheduleListing(const Schedule& schedule, const ScheduleCheck& check) {
  std::string text;
  for (const RankSchedule& rank : schedule.ranks) {
    // The listing and the table are for a terminal: file and op names escaped as lines.
    text += fmt::format("rank {} ({}): {}\n", rank.rank, terminalLine(rank.name), plural(rank.calls.size(), "call"));
    for (size_t i = 0; i < rank.calls.size(); ++i) {
      const CommCall& call = rank.calls[i];
      text += fmt::format("  #{:<4} {:<34} {:<18} {}{}\n", i + 1, terminalLine(callText(call)),
                          communicatorName(schedule.communicators.at(call.ring)), terminalLine(placeText(rank, call)),
                          call.inControlFlow ? "  (in control flow: not checked)" : "");
    }
  }
  if (!check.clean()) text += wavefrontListing(schedule, check);
  return text;
}

std::string scheduleTable(const Schedule& schedule) {
  std::vector<std::vector<std::string>> columns;
  size_t rows = 0;
  for (const RankSchedule& rank : schedule.ranks) {
    std::vector<std::string> column{fmt::format("rank {}", rank.rank)};
    for (const CommCall& call : rank.calls) column.push_back(fmt::format("{} @{}", terminalLine(callText(call)), call.ring));
    rows = std::max(rows, column.size());
    columns.push_back(std::move(column));
  }
  std::string text;
  for (size_t row = 0; row < rows; ++row) {
    std::string line = row == 0 ? "step" : fmt::format("{}", row);
    line.resize(6, ' ');
    for (const auto& column : columns) {
      size_t width = 0;
      for (const std::string& cell : column) width = std::max(width, cell.size());
      std::string cell = row < column.size() ? column[row] : "-";
      cell.resize(width + 2, ' ');
      line += cell;
    }
    text += std::string(trim(line)) + "\n";
  }
  return text;
}

Json scheduleJson(const Schedule& schedule, const ScheduleCheck& check) {
  Json document = documentJson("schedule");
  document["ranks"] = Json::array();
  for (const RankSchedule& rank : schedule.ranks) {
    Json calls = Json::array();
    for (size_t i = 0; i < rank.calls.size(); ++i) calls.push_back(callJson(schedule, rank, i));
    document["ranks"].push_back({{"rank", rank.rank}, {"input", rank.name}, {"calls", calls}});
  }
  document["communicators"] = Json::array();
  for (const auto& [ring, comm] : schedule.communicators)
    document["communicators"].push_back(
        {{"ring", ring}, {"ranks", comm.order}, {"from", membersFromName(comm.from)}, {"absent", comm.absent}});
  document["findings"] = Json::array();
  for (const Finding& finding : check.findings) document["findings"].push_back(findingJson(schedule, finding));
  document["wavefront"] = Json::array();
  for (size_t r = 0; r < schedule.ranks.size(); ++r) {
    const WavefrontEntry& entry = check.wavefront[r];
    document["wavefront"].push_back({{"rank", schedule.ranks[r].rank},
                                     {"completed", entry.completed},
                                     {"checked", entry.checked},
                                     {"blocked_at", entry.blockedAt == kNoCall ? Json() : Json(entry.blockedAt + 1)}});
  }
  document["clean"] = check.clean();
  return document;
}

std::string scheduleSummary(const Schedule& schedule, const ScheduleCheck& check) {
  return fmt::format("schedule: {}, {} on {}: {}", plural(schedule.ranks.size(), "rank"),
                     plural(schedule.callCount(), "call"), plural(schedule.communicators.size(), "communicator"),
                     check.clean() ? "no mismatch, no deadlock" : plural(check.findings.size(), "finding"));
}

}  // namespace reshardctl
