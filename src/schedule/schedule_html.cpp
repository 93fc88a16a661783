#include "schedule/schedule_html.h"

#include <algorithm>
#include <map>
#include <utility>

#include "schedule/schedule_output.h"
#include "support/text.h"
#include "view/html_writer.h"

namespace reshardctl {

namespace {

constexpr Markup kStyle =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;vertical-align:top;text-align:left}"
    "th{background:#f3f3f3}td.step{color:#777;text-align:right}.place{color:#777;font-size:12px}"
    "td.finding{background:#fdd;border:2px solid #c00}td.waits{outline:2px dashed #c60}"
    "td.unchecked{color:#888;font-style:italic}.clean{color:#070}.findings li{margin-bottom:.5em}"_markup;

// (rank index, call index) -> the number of the first finding it is part of.
std::map<std::pair<size_t, size_t>, size_t> findingCells(const ScheduleCheck& check) {
  std::map<std::pair<size_t, size_t>, size_t> cells;
  for (size_t f = 0; f < check.findings.size(); ++f)
    for (const FindingOp& op : check.findings[f].ops)
      if (op.call != kNoCall) cells.emplace(std::make_pair(op.rank, op.call), f + 1);
  return cells;
}

void writeFindings(HtmlWriter& page, const Schedule& schedule, const ScheduleCheck& check) {
  if (check.clean()) {
    page << "<p class=\"clean\">"_markup << "No mismatch, no deadlock." << "</p>\n"_markup;
    return;
  }
  page << "<ol class=\"findings\">\n"_markup;
  for (const Finding& finding : check.findings) {
    page.format("<li id=\"finding-{}\"><b>{}</b>: {}<ul>", &finding - check.findings.data() + 1,
                findingKindName(finding.kind), finding.message);
    for (const FindingOp& op : finding.ops) {
      const RankSchedule& rank = schedule.ranks[op.rank];
      const std::string place = op.call == kNoCall ? std::string("no call there") : placeText(rank, rank.calls[op.call]);
      page.format("<li>rank {}: {} <span class=\"place\">{}</span></li>", rank.rank, op.text, place);
    }
    page << "</ul></li>\n"_markup;
  }
  page << "</ol>\n"_markup;
}

void writeCell(HtmlWriter& page, const Schedule& schedule, const ScheduleCheck& check, size_t r, size_t i,
               const std::map<std::pair<size_t, size_t>, size_t>& cells) {
  const RankSchedule& rank = schedule.ranks[r];
  if (i >= rank.calls.size()) {
    page << "<td></td>"_markup;
    return;
  }
  const CommCall& call = rank.calls[i];
  const auto finding = cells.find({r, i});
  const bool waits = r < check.wavefront.size() && check.wavefront[r].blockedAt == i;
  const Markup kind = finding != cells.end() ? "finding"_markup : call.inControlFlow ? "unchecked"_markup : ""_markup;
  page.format("<td class=\"{}{}\"", kind, waits ? " waits"_markup : ""_markup);
  if (finding != cells.end()) page.format(" title=\"finding {}\"", finding->second);
  page.format(">{} <span class=\"place\">{} · line {}</span></td>", callText(call),
              communicatorName(schedule.communicators.at(call.ring)), rank.source->lineCol(call.location).line);
}

void writeTable(HtmlWriter& page, const Schedule& schedule, const ScheduleCheck& check) {
  const auto cells = findingCells(check);
  size_t steps = 0;
  page << "<table>\n<tr><th>step</th>"_markup;
  for (const RankSchedule& rank : schedule.ranks) {
    page.format("<th>rank {} <span class=\"place\">{}</span></th>", rank.rank, rank.name);
    steps = std::max(steps, rank.calls.size());
  }
  page << "</tr>\n"_markup;
  for (size_t i = 0; i < steps; ++i) {
    page.format("<tr><td class=\"step\">{}</td>", i + 1);
    for (size_t r = 0; r < schedule.ranks.size(); ++r) writeCell(page, schedule, check, r, i, cells);
    page << "</tr>\n"_markup;
  }
  page << "</table>\n"_markup;
}

}  // namespace

std::string scheduleHtml(const Schedule& schedule, const ScheduleCheck& check) {
  HtmlWriter page;
  page << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"_markup
       << "reshardctl schedule" << "</title><style>"_markup << kStyle << "</style></head><body>\n"_markup;
  page << "<h1>"_markup << scheduleSummary(schedule, check) << "</h1>\n"_markup;
  writeFindings(page, schedule, check);
  page << "<p>"_markup
       << "Each rank's communication calls in the order it issues them; a red cell is part of a finding, a dashed "
          "one is where that rank waits when the run stops, a grey one is inside control flow and not checked."
       << "</p>\n"_markup;
  writeTable(page, schedule, check);
  page << "</body></html>\n"_markup;
  return page.take();
}

}  // namespace reshardctl
